import Cluster
import Foundation
import KindredCLI
import KindredCore
import Service

enum NodeCommand {
    static let help = """
        kindred node — host shards of a Kindred cluster on NATS JetStream

        USAGE: kindred node --nats URL[,URL...] --data DIR --name NAME [--shards N] [--config PATH] [--set key=value]...

        Claims an even share of the cluster's shards in the shard map (and the shards of nodes silent
        for --failover-ms), keeps one SQLite file per shard in DIR and answers the requests a
        `kindred serve --cluster` router sends them. Writes go to the replicated write log first and
        are applied once it holds them. Runs until interrupted. See docs/scale-out.md.

        OPTIONS:
          --nats URL[,URL...]  NATS servers of one cluster with JetStream (nats://127.0.0.1:4222)
          --data DIR           where this node keeps its shards' files (created if missing)
          --name NAME          this node's name in the cluster (letters, digits, '-', '_'); keep it across restarts
          --shards N           shard count of a new cluster (cluster.shards, 64; fixed once the cluster exists)
          --failover-ms MS     silence after which a node's shards are taken over (cluster.failoverMs, 5000)
          --config PATH        JSON configuration file, as for `kindred serve` (cluster.* keys: docs/configuration.md)
          --set key=value      override one configuration key
          --help               show this help
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["nats", "data", "name", "shards", "failover-ms", "config", "set"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard args.positionals.isEmpty else { throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[0])'") }
        guard let urls = args.value("nats") else { throw Arguments.UsageError(description: "--nats URL is required") }
        guard let data = args.value("data") else { throw Arguments.UsageError(description: "--data DIR is required") }
        guard let name = args.value("name") else { throw Arguments.UsageError(description: "--name NAME is required") }
        guard ClusterLayout.isValidNodeName(name) else {
            throw Arguments.UsageError(description: "--name must be 1 to 64 letters, digits, '-' or '_', got '\(name)'")
        }
        let config = try ServiceFactory.config(args)
        let settings = try ClusterSettings(config)
        var options = Node.Options(name: name, dataDirectory: data)
        options.shards = settings.shards
        options.failoverMs = settings.failoverMs
        options.standbys = settings.standbys
        options.snapshotEvery = settings.snapshotEvery
        options.snapshotEveryMs = settings.snapshotEveryMs
        if let s = args.value("shards") {
            guard let n = Int(s), (1...4096).contains(n) else { throw Arguments.UsageError(description: "--shards must be an integer from 1 to 4096, got '\(s)'") }
            options.shards = n
        }
        if let s = args.value("failover-ms") {
            guard let n = Int(s), n >= 500 else { throw Arguments.UsageError(description: "--failover-ms must be an integer of at least 500, got '\(s)'") }
            options.failoverMs = n
        }
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        EmbedderSetup.configureThreads(config)
        let (embedder, problem) = EmbedderSetup.make(config)
        let connection = try NATSConnection(urls: urls, name: "kindred-node-\(name)")
        let node = try Node(connection: connection, options: options, makeService: { path in
            let service = try KindredService(config: config, databasePath: path, embedder: embedder, embedderProblem: problem,
                                             previousEmbedder: EmbedderSetup.previousEmbedder(config),
                                             migrationProgress: { Output.err("\(path): \($0)") })
            // The replicated write log is what makes a write durable: a shard's commits need no sync
            // of their own (synced at checkpoints). A machine that crashes loses at most the last
            // commits of a file, with the applied sequence stored in them, and the node applies
            // those writes again from the log.
            _ = try service.groupCommit()
            service.startBackgroundEmbedding { Output.err("kindred node \(name): \($0)") }
            service.startKeywordIndex()
            return service
        }, say: { Output.err("kindred node \(name): \($0)") })
        Output.err("kindred node \(name): joined a cluster of \(node.shardCount) shards")
        let stopper = SignalStop { node.stop() }
        node.run()
        withExtendedLifetime(stopper) {}
        connection.close()
        return ExitCode.ok
    }
}

/// Calls `stop` on SIGINT or SIGTERM (once); a second signal ends the process at once, and so does
/// a stop that takes longer than 10 s (NATS gone: every call waits for its timeout). Ending without
/// closing the shards loses nothing: the log holds every acknowledged write.
final class SignalStop: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    init(_ stop: @escaping @Sendable () -> Void) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                stop()
                signal(sig, SIG_DFL)
                DispatchQueue.global().asyncAfter(deadline: .now() + 10) { exit(ExitCode.failure) }
            }
            source.resume()
            sources.append(source)
        }
    }
}
