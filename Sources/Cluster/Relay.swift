public import KindredCore
public import JSONRPC

/// What a router sends with a request so that the node's work reaches the router's client as it
/// would in one process: an id the router cancels it by (`kindred.cancel`), and, when the client
/// can be told or asked something on the way, a subject of the router's (`kindred.relay.ID`) where
/// the node publishes `$/progress` and `window/logMessage` and sends the server's requests to the
/// client (`patterns/judge`), with the client's `workDoneToken` and declared capabilities.
public struct Relay: Sendable, Equatable {
    public let id: String
    public let subject: String?
    public let workDoneToken: JSONValue?
    public let capabilities: JSONValue?

    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id)]
        if let subject { o["subject"] = .string(subject) }
        if let workDoneToken { o["workDoneToken"] = workDoneToken }
        if let capabilities { o["capabilities"] = capabilities }
        return .object(o)
    }

    public init(id: String, subject: String?, workDoneToken: JSONValue?, capabilities: JSONValue?) {
        (self.id, self.subject, self.workDoneToken, self.capabilities) = (id, subject, workDoneToken, capabilities)
    }

    init?(_ v: JSONValue?) {
        guard let v, let id = v["id"]?.stringValue else { return nil }
        self.init(id: id, subject: v["subject"]?.stringValue, workDoneToken: v["workDoneToken"], capabilities: v["capabilities"])
    }

    /// Where routers publish the id of a request their client cancelled; every node listens.
    public static let cancelSubject = "kindred.cancel"
    static func subject(_ id: String) -> String { "kindred.relay.\(id)" }
}

/// The messages on a relay subject, node to router: a notification for the client, or (with a
/// reply subject) a request to it, answered with the client's reply.
enum RelayMessage {
    case notify(method: String, params: JSONValue)
    case request(method: String, params: JSONValue, timeoutMs: Int64)

    var bytes: [UInt8] {
        switch self {
        case let .notify(method, params):
            JSONWriter.bytes(["notify": ["method": .string(method), "params": params]])
        case let .request(method, params, timeoutMs):
            JSONWriter.bytes(["request": ["method": .string(method), "params": params, "timeoutMs": .int(timeoutMs)]])
        }
    }

    init?(_ bytes: [UInt8]) {
        guard let v = try? JSONParser.parse(bytes) else { return nil }
        if let n = v["notify"], let method = n["method"]?.stringValue {
            self = .notify(method: method, params: n["params"] ?? .null)
        } else if let r = v["request"], let method = r["method"]?.stringValue, let timeoutMs = r["timeoutMs"]?.intValue {
            self = .request(method: method, params: r["params"] ?? .null, timeoutMs: timeoutMs)
        } else {
            return nil
        }
    }

    /// A client's reply as it travels back to the node.
    static func encode(_ reply: ClientReply) -> [UInt8] {
        let v: JSONValue = switch reply {
        case .result(let r): ["result": r]
        case let .error(code, message): ["error": ["code": .int(code), "message": .string(message)]]
        case .timedOut: ["timedOut": true]
        case .cancelled: ["cancelled": true]
        case .closed: ["closed": true]
        }
        return JSONWriter.bytes(v)
    }

    static func decodeReply(_ bytes: [UInt8]) -> ClientReply {
        guard let v = try? JSONParser.parse(bytes) else { return .closed }
        if let r = v["result"] { return .result(r) }
        if let e = v["error"] { return .error(code: e["code"]?.intValue ?? -32603, message: e["message"]?.stringValue ?? "") }
        if v["timedOut"] != nil { return .timedOut }
        if v["cancelled"] != nil { return .cancelled }
        return .closed
    }
}
