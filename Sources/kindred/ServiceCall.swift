import JSONRPC
import KindredCLI
import KindredCore
import Service

/// A method call made for a command: a parameter the service refuses (-32602, or -32040 over a
/// limit) is the user's option value, so it becomes a usage error (exit 2) that names the option, in
/// plain words.
enum ServiceCall {
    /// `options` maps a parameter path (`mode`, `filters.from`) to the option that gave it (`--mode`).
    static func call(_ service: KindredService, _ method: String, _ params: JSONObject, options: [String: String]) throws -> JSONValue {
        try call({ method, params throws(ResponseError) in try service.call(method, params) }, method, params, options: options)
    }

    /// The same, answered by `send` (a cluster's router).
    static func call(_ send: (String, JSONValue) throws(ResponseError) -> JSONValue, _ method: String, _ params: JSONObject,
                     options: [String: String]) throws -> JSONValue {
        do {
            return try send(method, .object(params))
        } catch let e where e.code == .invalidParams || (e.code == .limitExceeded && e.data?["field"] != nil) {
            let field = e.data?["field"]?.stringValue ?? ""
            let reason = e.data?["reason"]?.stringValue ?? e.message
            let option = options[field] ?? options.first { field.hasPrefix($0.key + ".") || field.hasPrefix($0.key + "[") }?.value
            throw Arguments.UsageError(description: option.map { "\($0): \(reason)" } ?? "\(field.isEmpty ? "invalid input" : field): \(reason)")
        } catch {
            throw CommandError(description: error.message, code: error.code == .notFound ? ExitCode.notFound : ExitCode.failure)
        }
    }
}

/// A failure told in plain words, without the protocol's error code: exit 1, or 4 when what was
/// asked for is not there.
struct CommandError: Error, CustomStringConvertible {
    let description: String
    var code: Int32 = ExitCode.failure
}
