public import KindredCore

/// One incoming JSON-RPC message, classified.
public enum IncomingMessage: Sendable, Equatable {
    /// A request (`id` kept with its JSON type: `"1"` ≠ `1`).
    case request(id: JSONValue, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    /// A response to something the server sent; never answered.
    case response(id: JSONValue)
    /// Not a valid request; answered with this error and `id` (null when unknown).
    case invalid(id: JSONValue, error: ResponseError)

    /// Classifies one element (an object) of a message or batch.
    public static func classify(_ v: JSONValue) -> IncomingMessage {
        guard case .object(let o) = v else { return .invalid(id: .null, error: .invalidRequest("a message must be an object")) }
        let rawID = o["id"]
        var id: JSONValue = .null
        if let rawID {
            switch rawID {
            case .string, .int, .double, .null: id = rawID
            default: return .invalid(id: .null, error: .invalidRequest("id must be a string, number or null"))
            }
        }
        guard o["jsonrpc"] == .string("2.0") else {
            return .invalid(id: id, error: .invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard let m = o["method"] else {
            if rawID != nil, o["result"] != nil || o["error"] != nil || rawID != .null { return .response(id: id) }
            return .invalid(id: id, error: .invalidRequest("method is missing"))
        }
        guard case .string(let method) = m else { return .invalid(id: id, error: .invalidRequest("method must be a string")) }
        let params = o["params"]
        if let params {
            switch params {
            case .object, .array: break
            default: return .invalid(id: id, error: .invalidRequest("params must be an object or an array"))
            }
        }
        if rawID == nil { return .notification(method: method, params: params) }
        return .request(id: id, method: method, params: params)
    }
}

public enum OutgoingMessage {
    public static func result(id: JSONValue, _ result: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "result": result])
    }
    public static func error(id: JSONValue, _ error: ResponseError) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": id, "error": error.json])
    }
    public static func notification(_ method: String, _ params: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "method": .string(method), "params": params])
    }
}
