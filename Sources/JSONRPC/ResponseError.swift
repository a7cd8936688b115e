public import KindredCore
public import KindredProtocol

/// An error answered to a request: `{code, message, data?}`.
public struct ResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var data: JSONValue?

    public init(code: ErrorCode, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public var json: JSONValue {
        var o: JSONObject = ["code": .int(Int64(code.rawValue)), "message": .string(message)]
        if let data { o["data"] = data }
        return .object(o)
    }

    public static func invalidParams(field: String, reason: String, extra: JSONObject = [:]) -> ResponseError {
        var d = extra
        d["field"] = .string(field)
        d["reason"] = .string(reason)
        return ResponseError(code: .invalidParams, message: "invalid params: \(field): \(reason)", data: .object(d))
    }
    public static func methodNotFound(_ method: String) -> ResponseError {
        ResponseError(code: .methodNotFound, message: "method not found: \(method)", data: ["method": .string(method)])
    }
    public static func invalidRequest(_ reason: String) -> ResponseError {
        ResponseError(code: .invalidRequest, message: "invalid request: \(reason)")
    }
    public static func parseError(_ reason: String) -> ResponseError {
        ResponseError(code: .parseError, message: "parse error: \(reason)")
    }
    public static func internalError(_ reason: String) -> ResponseError {
        ResponseError(code: .internalError, message: "internal error: \(reason)")
    }
    public static let cancelled = ResponseError(code: .requestCancelled, message: "request cancelled")
    public static let notInitialized = ResponseError(code: .serverNotInitialized, message: "server not initialized: send initialize first")
}
