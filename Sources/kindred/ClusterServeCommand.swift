import Cluster
import Foundation
import JSONRPC
import KindredCLI
import KindredCore

/// `kindred serve --cluster URL`: the same JSON-RPC over stdio, answered by the cluster's nodes.
enum ClusterServeCommand {
    static func wanted(_ argv: [String]) -> Bool { argv.contains { $0 == "--cluster" || $0.hasPrefix("--cluster=") } }

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["cluster", "framing", "timeout-ms", "config", "set"], flags: ["help"])
        if args.has("help") { Output.out(ServeCommand.help); return ExitCode.ok }
        guard args.positionals.isEmpty else { throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[0])'") }
        guard let urls = args.value("cluster") else { throw Arguments.UsageError(description: "--cluster URL is required") }
        let framing = try Stdio.framing(args)
        let settings = try ClusterSettings(try ServiceFactory.config(args))
        var timeoutMs = settings.timeoutMs
        if let t = args.value("timeout-ms") {
            guard let n = Int64(t), n >= ClusterSettings.leastTimeoutMs else { throw Arguments.UsageError(description: "--timeout-ms must be an integer of at least 100, got '\(t)'") }
            timeoutMs = n
        }
        signal(SIGPIPE, SIG_IGN)
        let protocolFD = dup(1)
        dup2(2, 1)

        let connection = try NATSConnection(urls: urls, name: "kindred-router")
        let router = try Router(connection: connection, timeoutMs: timeoutMs, retryMs: settings.retryMs, failoverMs: Int64(settings.failoverMs))
        let holder = ServerHolder()
        let server = Server(
            options: Server.Options(framing: framing),
            sink: FileDescriptorSink(fd: protocolFD),
            initialize: { _, _ in router.initializeResult(methods: holder.methods) },
            onShutdown: { connection.close() })
        router.register(on: server)
        holder.methods = server.registeredMethods
        return server.run(read: Stdio.reader())
    }
}
