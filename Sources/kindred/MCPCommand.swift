import Cluster
import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import MCP
import Service

enum MCPCommand {
    static let help = """
        kindred mcp — serve one owner's records to MCP clients (assistants, agents) over stdio

        USAGE: kindred mcp --db PATH --owner OWNER [--config PATH] [--set key=value]...
               kindred mcp --cluster URL[,URL...] --owner OWNER [--config PATH] [--set key=value]...

        Speaks the Model Context Protocol as newline-delimited JSON-RPC on stdin/stdout, for clients
        of both protocol eras: the initialize handshake (2024-11-05 to 2025-11-25) and the stateless
        2026-07-28 revision (server/discover, the envelope in every request's _meta). The first
        request decides the era of the connection.

        Tools: search, get_record, similar, findings, group, themes, refresh_patterns, correct, index_status.
        One server process acts for exactly one owner, given here: no tool takes an owner, so an
        agent cannot reach another person's records. Start one process per person.

        OPTIONS:
          --db PATH          SQLite file (created if missing); KINDRED_DB also works
          --cluster URL      instead of --db: send every tool's call to the cluster node holding the
                             owner's shard, over these NATS servers (docs/scale-out.md)
          --owner OWNER      the person whose records every tool reads and corrects (required)
          --config PATH      JSON configuration file; KINDRED_CONFIG also works
          --set key=value    override one configuration key
          --help             show this help

        Logs go to stderr; stdout carries only protocol messages. Exit code 0 at end of input.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner", "cluster"]), flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard args.positionals.isEmpty else { throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[0])'") }
        guard let owner = args.value("owner") else {
            throw Arguments.UsageError(description: "--owner is required: one server process serves one person's records")
        }
        if args.value("cluster") != nil, args.value("db") != nil {
            throw Arguments.UsageError(description: "--cluster and --db exclude each other: the cluster's nodes hold the records")
        }
        // Protect the protocol stream: keep the real stdout for the writer, point fd 1 at stderr.
        signal(SIGPIPE, SIG_IGN)
        let protocolFD = dup(1)
        dup2(2, 1)
        if let urls = args.value("cluster") { return try runOnCluster(urls, owner: owner, args, protocolFD) }

        let service = try ServiceFactory.open(args, missing: .create)
        defer { service.close() }
        // The owner is read as every method reads it (non-empty, no NUL, NFC).
        _ = try ServiceCall.call(service, "index/status", ["owner": .string(owner)], options: ["owner": "--owner"])
        let server = MCPServer(
            info: .init(name: "kindred", version: KindredService.version, instructions: KindredService.mcpInstructions),
            tools: service.mcpTools(owner: owner), sink: FileDescriptorSink(fd: protocolFD),
            maxMessageBytes: service.settings.rpc.maxMessageBytes)
        service.startBackgroundEmbedding { message in Output.err("kindred mcp: \(message)") }
        return server.run(read: Stdio.reader())
    }

    /// The same server, its tools answered by the cluster's nodes through a router.
    static func runOnCluster(_ urls: String, owner: String, _ args: Arguments, _ protocolFD: Int32) throws -> Int32 {
        let config = try ServiceFactory.config(args)
        let settings = try ClusterSettings(config)
        let connection = try NATSConnection(urls: urls, name: "kindred-mcp")
        defer { connection.close() }
        let router = try Router(connection: connection, timeoutMs: settings.timeoutMs, retryMs: settings.retryMs, failoverMs: Int64(settings.failoverMs))
        // The owner is read by its shard's node as every method reads it (non-empty, no NUL, NFC).
        _ = try ServiceCall.call({ method, params throws(ResponseError) in try router.forward(method, params) }, "index/status",
                                 ["owner": .string(owner)], options: ["owner": "--owner"])
        let server = MCPServer(
            info: .init(name: "kindred", version: KindredService.version, instructions: KindredService.mcpInstructions),
            tools: KindredService.mcpTools(owner: owner) { method, params, _ throws(ResponseError) in try router.forward(method, params) },
            sink: FileDescriptorSink(fd: protocolFD), maxMessageBytes: Settings(config).rpc.maxMessageBytes)
        return server.run(read: Stdio.reader())
    }
}
