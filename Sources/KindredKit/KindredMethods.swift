import KindredProtocol
import Service

/// The catalogue: one request type per method this build answers, in the order of the service's
/// routes (`Service/Wire/Routes.swift`, the one list of methods, each with its handler). Tests hold
/// the MCP tools' schemas, the Python client's method table and the docs' parameter tables to it.
public enum KindredMethods {
    public static var all: [any KindredRequest.Type] { KindredService.requestTypes }

    /// The catalogue entry of `method`, if this build answers it.
    public static func spec(_ method: String) -> MethodSpec? { all.lazy.map { $0.spec }.first { $0.method == method } }
}
