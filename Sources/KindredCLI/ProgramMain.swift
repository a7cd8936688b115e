/// The shared entry point of Kindred's command-line programs: the `help` forms, the dispatch to a
/// command, and how an error becomes a message and an exit code.
public struct ProgramMain {
    public let name: String
    public let usage: String
    /// Printed for `--version`; nil when the program has none.
    public let version: String?
    /// Runs one command with its arguments; returns the exit code.
    public let run: (String, [String]) throws -> Int32
    /// The program's own errors: a message and exit code, or nil for the generic handling.
    public let explain: (Error) -> (message: String, code: Int32)?

    public init(
        name: String, usage: String, version: String? = nil,
        run: @escaping (String, [String]) throws -> Int32,
        explain: @escaping (Error) -> (message: String, code: Int32)? = { _ in nil }
    ) {
        self.name = name
        self.usage = usage
        self.version = version
        self.run = run
        self.explain = explain
    }

    /// Runs the command line (without the program's own path) and returns the exit code.
    public func main(_ arguments: [String]) -> Int32 {
        var argv = arguments
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
            case "--version" where version != nil:
                Output.out(version!)
                return ExitCode.ok
            default:
                return try run(command, argv)
            }
        } catch let e as Arguments.UsageError {
            Output.err("\(name) \(command): \(e.description)\nRun `\(name) \(command) --help` for usage.")
            return ExitCode.usage
        } catch {
            if let (message, code) = explain(error) {
                Output.err("\(name) \(command): \(message)")
                return code
            }
            Output.err("\(name) \(command): \(error)")
            return ExitCode.failure
        }
    }
}
