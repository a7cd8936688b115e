import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum ServeCommand {
    static let help = """
        kindred serve — speak JSON-RPC 2.0 over stdio

        USAGE: kindred serve --db PATH [--config PATH] [--framing auto|lsp|ndjson] [--set key=value]...
               kindred serve --cluster URL[,URL...] [--config PATH] [--framing auto|lsp|ndjson] [--timeout-ms MS]

        Framing is detected from the first byte unless --framing forces it: '{' or '[' means
        newline-delimited JSON, anything else LSP Content-Length headers. Logs go to stderr and as
        window/logMessage notifications; stdout carries only protocol messages.

        OPTIONS:
          --db PATH          SQLite file (created if missing); KINDRED_DB also works
          --cluster URL      instead of --db: route each request to the cluster node holding its owner's
                             shard, over these NATS servers (docs/scale-out.md)
          --timeout-ms MS    with --cluster: longest wait for a node's answer (cluster.timeoutMs, 30000)
          --config PATH      JSON configuration file (see config/kindred.json); KINDRED_CONFIG also works
          --framing MODE     auto (default), lsp or ndjson
          --set key=value    override one configuration key
          --help             show this help
        """

    static func run(_ argv: [String]) throws -> Int32 {
        if ClusterServeCommand.wanted(argv) { return try ClusterServeCommand.run(argv) }
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["framing"]), flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard args.positionals.isEmpty else { throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[0])'") }
        let framing = try Stdio.framing(args)
        // Protect the protocol stream: keep the real stdout for the writer, point fd 1 at stderr.
        signal(SIGPIPE, SIG_IGN)
        let protocolFD = dup(1)
        dup2(2, 1)

        let service = try ServiceFactory.open(args, missing: .create)
        let sink = FileDescriptorSink(fd: protocolFD)
        let holder = ServerHolder()
        let server = Server(
            options: Server.Options(framing: framing, maxMessageBytes: service.settings.rpc.maxMessageBytes,
                                    durability: try service.groupCommit()),
            sink: sink,
            initialize: { _, _ in service.initializeResult(methods: holder.methods) },
            onShutdown: { service.close() })
        service.register(on: server)
        holder.methods = server.registeredMethods
        service.startBackgroundEmbedding { message in server.log(.warning, message) }
        service.startKeywordIndex()
        let code = server.run(read: Stdio.reader())
        return code
    }
}

/// Lets the initialize handler see the registered method list.
final class ServerHolder: @unchecked Sendable {
    var methods: [String] = []
}
