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

    /// What a command does with a database file that is not there yet.
    enum Missing {
        /// Commands that only read: a missing file is an error, never a new empty database.
        case refuse
        /// Commands that change what is there (refresh, delete, correct): an error unless the
        /// command line says `--create`, so a mistyped path is not a new empty database.
        case refuseUnlessCreate
        /// `ingest`: a new database is what loading a first file means.
        case create
    }

    /// Opens the service on the database. A path whose folder does not exist is an error in words
    /// (SQLite would say only "unable to open database file").
    static func open(_ args: Arguments, missing: Missing) throws -> KindredService {
        let config = try config(args)
        let path = try databasePath(args)
        try KindredService.check(config)
        if !FileManager.default.fileExists(atPath: path) {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            switch missing {
            case .refuse: throw CommandError(description: "no database at \(path)")
            case .refuseUnlessCreate where !args.has("create"):
                throw CommandError(description: "no database at \(path) (give --create to start a new one there)")
            default:
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw CommandError(description: "cannot create the database \(path): there is no folder \(folder)")
                }
            }
        }
        return try open(config: config, path: path)
    }

    /// Opens the service on `path` with `config` (`lsp` learns its path from the editor).
    static func open(config: Config, path: String) throws -> KindredService {
        EmbedderSetup.configureThreads(config)
        let (embedder, problem) = EmbedderSetup.make(config)
        return try KindredService(config: config, databasePath: path, embedder: embedder, embedderProblem: problem,
                                  previousEmbedder: EmbedderSetup.previousEmbedder(config), migrationProgress: { Output.err($0) })
    }
}
