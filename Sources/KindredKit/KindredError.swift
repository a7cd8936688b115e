import JSONRPC
import KindredProtocol

/// An error answer, with the same code, message and data as over the wire (docs/methods.md,
/// "Error codes"). `field` names the parameter for `.invalidParams` (`records[0].revision`).
public struct KindredError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error code: open, so that new codes break no client.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let invalidRequest = Code(rawValue: -32600)
        public static let methodNotFound = Code(rawValue: -32601)
        public static let invalidParams = Code(rawValue: -32602)
        public static let internalError = Code(rawValue: -32603)
        public static let requestCancelled = Code(rawValue: -32800)
        public static let notFound = Code(rawValue: -32001)
        public static let revisionConflict = Code(rawValue: -32010)
        public static let constraintConflict = Code(rawValue: -32020)
        public static let staleGroupVersion = Code(rawValue: -32021)
        public static let embedderUnavailable = Code(rawValue: -32030)
        public static let limitExceeded = Code(rawValue: -32040)
        public static let storageFailure = Code(rawValue: -32050)
    }

    public var code: Code
    public var message: String
    /// The error's `data` object, when it has one.
    public var data: KindredJSON?

    public init(code: Code, message: String, data: KindredJSON? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    init(_ e: ResponseError) {
        self.init(code: Code(rawValue: Int(e.code.rawValue)), message: e.message, data: e.data.map(KindredJSON.init))
    }

    /// `data.field`: the parameter the error is about.
    public var field: String? { data?["field"]?.string }

    public var description: String { "\(message) (\(code.rawValue))" }
}

/// A `$/progress` value: `begin` (with a title), any number of `report`, then `end`.
public struct KindredProgress: Sendable, Hashable {
    public enum Kind: String, Sendable { case begin, report, end }
    public var kind: Kind
    public var title: String?
    public var message: String?
    /// 0 … 100 when the method knows it.
    public var percentage: Int?
}
