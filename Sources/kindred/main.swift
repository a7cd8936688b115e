import Foundation
import KindredCLI
import KindredCore
import LinearAlgebra

let usage = """
    kindred — semantic search and pattern discovery over a person's records

    USAGE: kindred <command> [options]

    COMMANDS:
      serve      speak JSON-RPC 2.0 over stdio (for applications); --cluster URL routes to a cluster
      mcp        serve one owner's records as MCP tools over stdio (for assistants and agents)
      lsp        a language server for a folder of notes (for editors)
      ingest     load records from a JSON Lines file (or standard input)
      records    get one record, or delete records
      search     natural-language search over one owner's records
      status     index counts, model and version
      patterns   refresh, findings, show GROUP_ID, themes, map, timeline, correct and label
      tombstones purge the tombstones of deleted records older than a date
      embed      print embeddings of texts, one JSON array per line
      node       host shards of a cluster on NATS JetStream (docs/scale-out.md)
      cluster    status, drain and fleet-wide pattern refresh of a cluster
      help       show this help, or `kindred help COMMAND`

    Run `kindred COMMAND --help` for a command's options.
    """

func run(_ command: String, _ argv: [String]) throws -> Int32 {
    switch command {
    case "serve": return try ServeCommand.run(argv)
    case "mcp": return try MCPCommand.run(argv)
    case "lsp": return try LSPCommand.run(argv)
    case "ingest": return try IngestCommand.run(argv)
    case "records": return try RecordsCommand.run(argv)
    case "search": return try SearchCommand.run(argv)
    case "status": return try StatusCommand.run(argv)
    case "patterns": return try PatternsCommand.run(argv)
    case "tombstones": return try TombstonesCommand.run(argv)
    case "embed": return try EmbedCommand.run(argv)
    case "node": return try NodeCommand.run(argv)
    case "cluster": return try ClusterCommand.run(argv)
    default:
        Output.err("kindred: unknown command '\(command)'\n\n\(usage)")
        return ExitCode.usage
    }
}

Reexec.once { BLASCoreType.startEnvironment(cpuFlags: BLASCoreType.cpuFlags(), current: Reexec.environment) }
let program = ProgramMain(name: "kindred", usage: usage, version: "kindred 0.1.0", run: run) { error in
    switch error {
    case let e as CommandError: return (e.description, e.code)
    case let e as ConfigError: return ("configuration: \(e.description)", ExitCode.usage)
    default: return nil
    }
}
exit(program.main(Array(CommandLine.arguments.dropFirst())))
