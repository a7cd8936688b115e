/// A JSON-RPC error code. Open set: new codes break no client.
public struct ErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let parseError = ErrorCode(rawValue: -32700)
    public static let invalidRequest = ErrorCode(rawValue: -32600)
    public static let methodNotFound = ErrorCode(rawValue: -32601)
    public static let invalidParams = ErrorCode(rawValue: -32602)
    public static let internalError = ErrorCode(rawValue: -32603)
    public static let serverNotInitialized = ErrorCode(rawValue: -32002)
    public static let requestCancelled = ErrorCode(rawValue: -32800)
}
