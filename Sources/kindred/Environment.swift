import Foundation
import KindredCLI
import KindredCore
import Service

/// Opening the service the way every subcommand does: config file, environment, database path, embedder.
enum ServiceFactory {
    static let commonOptions: Set<String> = ["db", "config", "set"]

    static func config(_ args: Arguments) throws -> Config {
        let overrides: [(String, String)] = try args.values("set").map { kv in
            guard let eq = kv.firstIndex(of: "=") else { throw Arguments.UsageError(description: "--set expects key=value, got '\(kv)'") }
            return (String(kv[..<eq]), String(kv[kv.index(after: eq)...]))
        }
        return try ConfigLoader.load(file: args.value("config"), environment: ProcessInfo.processInfo.environment, overrides: overrides)
    }

    static func databasePath(_ args: Arguments) throws -> String {
        if let p = args.value("db") ?? ProcessInfo.processInfo.environment["KINDRED_DB"] { return p }
        throw Arguments.UsageError(description: "--db PATH is required (or set KINDRED_DB)")
    }

    /// Opens the service on the database. With `mustExist` (commands that only read, or change
    /// what is there) a missing file is an error rather than a new empty database.
    static func open(_ args: Arguments, mustExist: Bool = false) throws -> KindredService {
        let config = try config(args)
        let path = try databasePath(args)
        if mustExist && !FileManager.default.fileExists(atPath: path) {
            throw CommandError(description: "no database at \(path)")
        }
        return try open(config: config, path: path)
    }

    /// Opens the service on `path` with `config` (`lsp` learns its path from the editor).
    static func open(config: Config, path: String) throws -> KindredService {
        EmbedderSetup.configureThreads(config)
        let (embedder, problem) = EmbedderSetup.make(config)
        return try KindredService(config: config, databasePath: path, embedder: embedder, embedderProblem: problem,
                                  previousEmbedder: EmbedderSetup.previousEmbedder(config))
    }
}
