/// A small command-line parser: `--flag value`, `--flag=value`, boolean `--switch`, positionals.
struct Arguments {
    var options: [String: [String]] = [:]
    var switches: Set<String> = []
    var positionals: [String] = []

    struct UsageError: Error, CustomStringConvertible { let description: String }

    /// - Parameters:
    ///   - valued: option names that take a value (without `--`).
    ///   - flags: boolean switches.
    init(_ args: [String], valued: Set<String>, flags: Set<String>) throws {
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

    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func has(_ name: String) -> Bool { switches.contains(name) }

    func required(_ name: String) throws -> String {
        guard let v = value(name) else { throw UsageError(description: "--\(name) is required") }
        return v
    }

    func int(_ name: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let i = Int(v) else { throw UsageError(description: "--\(name) must be an integer, got '\(v)'") }
        return i
    }
}

/// Process exit codes.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 2
    /// Some input lines were refused (ingest).
    static let partial: Int32 = 3
    static let notFound: Int32 = 4
}
