import JSONRPC
import KindredProtocol

/// An error answer, with the same code, message and data as over the wire (docs/methods.md,
/// "Error codes"). `field` names the parameter for `.invalidParams` (`records[0].revision`).
public struct KindredError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An error code: open, so that new codes break no client (`KindredProtocol.ErrorCode`, the
    /// list the server answers with).
    public typealias Code = ErrorCode

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
        self.init(code: e.code, message: e.message, data: e.data.map(KindredJSON.init))
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
