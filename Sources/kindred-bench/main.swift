import Foundation
import KindredCLI
import KindredCore
import LinearAlgebra

/// `kindred-bench`: the Swift side of the benchmarks in bench/ (not shipped with `kindred`).
let usage = """
    kindred-bench — measurements behind the benchmarks in bench/ (not part of the kindred command)

    USAGE: kindred-bench <command> [options]

    COMMANDS:
      embedder   embedding throughput on a file of texts (bench/embedder)
      search     exact search timings on raw vectors through a real store (bench/search)
      grouping   pattern-engine embed/cluster/speed helpers (bench/grouping)
      help       show this help, or `kindred-bench help COMMAND`

    Run `kindred-bench COMMAND --help` for a command's options.
    """

func run(_ command: String, _ argv: [String]) throws -> Int32 {
    switch command {
    case "embedder": return try EmbedderCommand.run(argv)
    case "search": return try SearchCommand.run(argv)
    case "grouping": return try GroupingCommand.run(argv)
    default:
        Output.err("kindred-bench: unknown command '\(command)'\n\n\(usage)")
        return ExitCode.usage
    }
}

Reexec.once { BLASCoreType.startEnvironment(cpuFlags: BLASCoreType.cpuFlags(), current: Reexec.environment) }
exit(ProgramMain(name: "kindred-bench", usage: usage, run: run).main(Array(CommandLine.arguments.dropFirst())))
