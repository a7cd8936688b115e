/// A JSON-RPC error code of Kindred's protocol: the one list the server answers with and the
/// clients decode (docs/methods.md, "Error codes", is tested against `documented`). Open set: new
/// codes break no client.
public struct ErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    // JSON-RPC 2.0 and the language server protocol.
    public static let parseError = ErrorCode(rawValue: -32700)
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    public static let invalidParams = ErrorCode(rawValue: -32602)
    public static let internalError = ErrorCode(rawValue: -32603)
    public static let serverNotInitialized = ErrorCode(rawValue: -32002)
    public static let requestCancelled = ErrorCode(rawValue: -32800)

    // Kindred's application codes (-32099 … -32000): stable, each keeps its meaning.
    public static let notFound = ErrorCode(rawValue: -32001)
    public static let revisionConflict = ErrorCode(rawValue: -32010)
    public static let constraintConflict = ErrorCode(rawValue: -32020)
    public static let staleGroupVersion = ErrorCode(rawValue: -32021)
    public static let embedderUnavailable = ErrorCode(rawValue: -32030)
    public static let limitExceeded = ErrorCode(rawValue: -32040)
    public static let storageFailure = ErrorCode(rawValue: -32050)
    /// `kindred serve --cluster` only: the owner's shard has no node serving it (retryable).
    public static let shardUnavailable = ErrorCode(rawValue: -32060)

    /// Every code `kindred serve` answers with, and its name as docs/methods.md writes it.
    public static let documented: [(code: ErrorCode, name: String)] = [
        (parseError, "parse error"), (invalidRequest, "invalid request"), (methodNotFound, "method not found"),
        (invalidParams, "invalid params"), (internalError, "internal error"), (serverNotInitialized, "server not initialized"),
        (requestCancelled, "request cancelled"), (notFound, "not found"), (revisionConflict, "revision conflict"),
        (constraintConflict, "constraint conflict"), (staleGroupVersion, "stale group version"),
        (embedderUnavailable, "embedder unavailable"), (limitExceeded, "limit exceeded"), (storageFailure, "storage failure"),
        (shardUnavailable, "shard unavailable"),
    ]
}
