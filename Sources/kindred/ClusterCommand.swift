import Cluster
import KindredCLI
import KindredCore

enum ClusterCommand {
    static let help = """
        kindred cluster — look after a Kindred cluster on NATS JetStream

        USAGE: kindred cluster status --nats URL[,URL...] [--json]
               kindred cluster drain NODE --nats URL[,URL...] [--config PATH] [--set key=value]...
               kindred cluster refresh --nats URL[,URL...] [--parallel N] [--timeout-ms MS] [--json] [--config PATH]

        status lists every shard with the node leading it, the last sequence of its write log, the
        sequence that node has applied and the lag between them, its standby copies with their lag,
        then every node with the age of its last heartbeat and whether it is drained.

        drain moves every shard of NODE to its standby copy (or another live node), one at a time,
        and prints a line per shard once its new leader serves it; NODE then takes no shards until it
        starts again. Reads and writes go on meanwhile (the router asks again while a shard moves).
        Only nodes heard from within cluster.failoverMs (docs/configuration.md) take shards.

        refresh runs a pattern refresh of every owner on every shard, --parallel shards at a time
        (default 4), and prints a line per shard as it ends, then the totals (--json: every shard's
        result). --timeout-ms is the longest wait for one shard (default 600000). Exit code 1 when a
        shard's refresh failed. See docs/scale-out.md.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["nats", "config", "set", "parallel", "timeout-ms"], flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard let command = args.positionals.first, ["status", "drain", "refresh"].contains(command) else {
            throw Arguments.UsageError(description: "expected the subcommand status, drain or refresh, got '\(args.positionals.joined(separator: " "))'")
        }
        if command == "drain" {
            guard args.positionals.count == 2 else { throw Arguments.UsageError(description: "drain needs one NODE, the name of the node to drain") }
            guard ClusterLayout.isValidNodeName(args.positionals[1]) else {
                throw Arguments.UsageError(description: "NODE must be 1 to 64 letters, digits, '-' or '_', got '\(args.positionals[1])'")
            }
        } else if args.positionals.count > 1 {
            throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[1])'")
        }
        guard let urls = args.value("nats") else { throw Arguments.UsageError(description: "--nats URL is required") }
        if command == "refresh" { try ClusterRefreshCommand.check(args) }
        let settings = try ClusterSettings(try ServiceFactory.config(args))
        let connection = try NATSConnection(urls: urls, name: "kindred-cluster-\(command)")
        defer { connection.close() }
        if command == "drain" { return try drain(connection, node: args.positionals[1], liveMs: Int64(settings.failoverMs)) }
        if command == "refresh" { return try ClusterRefreshCommand.run(connection, args, retryMs: settings.retryMs) }
        let status = try ClusterStatus.read(connection)
        if args.has("json") { Output.json(status); return ExitCode.ok }
        Output.out("shard  leader            log  applied  lag  standbys (lag)")
        for row in status["shards"]?.arrayValue ?? [] {
            let leader = row["leader"]?.stringValue ?? "-"
            let applied = row["applied"]?.intValue.map(String.init) ?? "-"
            let lag = row["lag"]?.intValue.map(String.init) ?? "-"
            let line = pad(String(row["shard"]?.intValue ?? 0), 5) + "  " + pad(leader, 16) + " " + pad(String(row["logSequence"]?.intValue ?? 0), 4, right: true)
                + "  " + pad(applied, 7, right: true) + "  " + pad(lag, 3, right: true) + "  " + standbys(row)
            Output.out(line)
        }
        for node in status["nodes"]?.arrayValue ?? [] {
            let age = node["heartbeatAgeMs"]?.intValue.map { "last heartbeat \($0) ms ago" } ?? "no heartbeat"
            Output.out("node \(node["name"]?.stringValue ?? "?"): \(age)" + (node["drained"]?.boolValue == true ? ", drained" : ""))
        }
        return ExitCode.ok
    }

    /// Drains the node, a line per shard moved; a node silent for `liveMs` is not taken as a taker.
    static func drain(_ connection: NATSConnection, node: String, liveMs: Int64) throws -> Int32 {
        let moved = try ClusterDrain.run(connection, node: node, liveMs: liveMs, waitMs: 600_000) { Output.out($0) }
        let takers = Set(moved.map(\.node)).sorted()
        Output.out("node \(node) drained: \(moved.count) shards moved" + (takers.isEmpty ? "" : " to \(takers.joined(separator: ", "))"))
        return ExitCode.ok
    }

    /// `b (0), c (2)`, or `-` when the shard has no standby copy.
    static func standbys(_ row: JSONValue) -> String {
        let copies = (row["standbys"]?.arrayValue ?? []).map { "\($0["node"]?.stringValue ?? "?") (\($0["lag"]?.intValue ?? 0))" }
        return copies.isEmpty ? "-" : copies.joined(separator: ", ")
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }
}
