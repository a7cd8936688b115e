import Cluster
import KindredCLI
import KindredCore

enum ClusterCommand {
    static let help = """
        kindred cluster — look at a Kindred cluster on NATS JetStream

        USAGE: kindred cluster status --nats URL[,URL...] [--json]

        status lists every shard with the node leading it, the last sequence of its write log, the
        sequence that node has applied and the lag between them, then every node with the age of its
        last heartbeat. See docs/scale-out.md.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["nats"], flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard args.positionals == ["status"] else {
            throw Arguments.UsageError(description: "expected the subcommand status, got '\(args.positionals.joined(separator: " "))'")
        }
        guard let urls = args.value("nats") else { throw Arguments.UsageError(description: "--nats URL is required") }
        let connection = try NATSConnection(urls: urls, name: "kindred-cluster-status")
        defer { connection.close() }
        let status = try ClusterStatus.read(connection)
        if args.has("json") { Output.json(status); return ExitCode.ok }
        Output.out("shard  leader            log  applied  lag")
        for row in status["shards"]?.arrayValue ?? [] {
            let leader = row["leader"]?.stringValue ?? "-"
            let applied = row["applied"]?.intValue.map(String.init) ?? "-"
            let lag = row["lag"]?.intValue.map(String.init) ?? "-"
            let line = pad(String(row["shard"]?.intValue ?? 0), 5) + "  " + pad(leader, 16) + " " + pad(String(row["logSequence"]?.intValue ?? 0), 4, right: true)
                + "  " + pad(applied, 7, right: true) + "  " + pad(lag, 3, right: true)
            Output.out(line)
        }
        for node in status["nodes"]?.arrayValue ?? [] {
            let age = node["heartbeatAgeMs"]?.intValue.map { "last heartbeat \($0) ms ago" } ?? "no heartbeat"
            Output.out("node \(node["name"]?.stringValue ?? "?"): \(age)")
        }
        return ExitCode.ok
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }
}
