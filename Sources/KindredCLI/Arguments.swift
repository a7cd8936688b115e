/// A small command-line parser: `--flag value`, `--flag=value`, boolean `--switch`, positionals.
public struct Arguments {
    public var options: [String: [String]] = [:]
    public var switches: Set<String> = []
    public var positionals: [String] = []

    public struct UsageError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// - Parameters:
    ///   - valued: option names that take a value (without `--`).
    ///   - flags: boolean switches.
    public init(_ args: [String], valued: Set<String>, flags: Set<String>) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            if onlyPositionals || !a.hasPrefix("--") || a == "-" {
                positionals.append(a)
            } else if a == "--" {
                onlyPositionals = true
            } else {
                var name = String(a.dropFirst(2))
                var value: String?
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if flags.contains(name) {
                    guard value == nil else { throw UsageError(description: "--\(name) takes no value") }
                    switches.insert(name)
                } else if valued.contains(name) {
                    if value == nil {
                        i += 1
                        guard i < args.count else { throw UsageError(description: "--\(name) needs a value") }
                        value = args[i]
                    }
                    options[name, default: []].append(value!)
                } else {
                    throw UsageError(description: "unknown option --\(name)")
                }
            }
            i += 1
        }
    }

    public func value(_ name: String) -> String? { options[name]?.last }
    public func values(_ name: String) -> [String] { options[name] ?? [] }
    public func has(_ name: String) -> Bool { switches.contains(name) }

    public func required(_ name: String) throws -> String {
        guard let v = value(name) else { throw UsageError(description: "--\(name) is required") }
        return v
    }

    public func int(_ name: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let i = Int(v) else { throw UsageError(description: "--\(name) must be an integer, got '\(v)'") }
        return i
    }
}

/// Process exit codes.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    /// Some input lines were refused (ingest).
    public static let partial: Int32 = 3
    public static let notFound: Int32 = 4
}
