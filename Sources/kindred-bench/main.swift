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

func runMain() -> Int32 {
    var argv = Array(CommandLine.arguments.dropFirst())
    guard let command = argv.first else {
        Output.err(usage)
        return ExitCode.usage
    }
    argv.removeFirst()
    do {
        switch command {
        case "help", "--help", "-h":
            if let sub = argv.first { return try run(sub, ["--help"]) }
            Output.out(usage)
            return ExitCode.ok
        default:
            return try run(command, argv)
        }
    } catch let e as Arguments.UsageError {
        Output.err("kindred-bench \(command): \(e.description)\nRun `kindred-bench \(command) --help` for usage.")
        return ExitCode.usage
    } catch {
        Output.err("kindred-bench \(command): \(error)")
        return ExitCode.failure
    }
}

BLASCoreType.reexecIfNeeded()
exit(runMain())
