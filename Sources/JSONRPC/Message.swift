public import KindredCore

/// One incoming JSON-RPC message, classified.
public enum IncomingMessage: Sendable, Equatable {
    /// A request (`id` kept with its JSON type and its digits: `"1"` ≠ `1` ≠ `1.0`).
    case request(id: RequestID, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    /// The `$/cancelRequest` notification, with the id it names (digits kept, as for requests).
    case cancel(id: RequestID)
    /// A response to something the server sent (`Server.request`); never answered. `result` is
    /// null when the response carries neither member; `error` is the error object when it has one.
    case response(id: RequestID, result: JSONValue, error: JSONValue?)
    /// Not a valid request; answered with this error and `id` (null when unknown).
    case invalid(id: RequestID, error: ResponseError)

    /// Classifies one element (an object) of a message or batch. `numberText` gives the source text of
    /// numbers by path within this element (`["id"]`), from `JSONParser.parseDocument`.
    public static func classify(_ v: JSONValue, numberText: (_ path: [JSONPathElement]) -> String? = { _ in nil }) -> IncomingMessage {
        guard case .object(let o) = v else { return .invalid(id: .null, error: .invalidRequest("a message must be an object")) }
        let rawID = o["id"]
        var id = RequestID.null
        if let rawID {
            switch rawID {
            case .string, .int, .double, .null: id = RequestID(rawID, numberText: numberText([.key("id")]))
            default: return .invalid(id: .null, error: .invalidRequest("id must be a string, number or null"))
            }
        }
        guard o["jsonrpc"] == .string("2.0") else {
            return .invalid(id: id, error: .invalidRequest("jsonrpc must be \"2.0\""))
        }
        guard let m = o["method"] else {
            if rawID != nil, o["result"] != nil || o["error"] != nil || rawID != .null {
                return .response(id: id, result: o["result"] ?? .null, error: o["error"])
            }
            return .invalid(id: id, error: .invalidRequest("method is missing"))
        }
        guard case .string(let method) = m else { return .invalid(id: id, error: .invalidRequest("method must be a string")) }
        let params = o["params"]
        if rawID == nil {
            if method == "$/cancelRequest" {
                guard let cancelled = params?["id"] else { return .notification(method: method, params: params) }
                return .cancel(id: RequestID(cancelled, numberText: numberText([.key("params"), .key("id")])))
            }
            return .notification(method: method, params: params)
        }
        // The shape of params is checked by the server once the lifecycle state has decided
        // (`checkParamsShape`): a request before `initialize` is -32002 whatever its params.
        return .request(id: id, method: method, params: params)
    }

    /// Every method takes its params by name: when present, params must be an object (JSON-RPC 2.0
    /// lets a server refuse by-position params with -32602).
    public static func checkParamsShape(_ params: JSONValue?) throws(ResponseError) {
        if let params, params.objectValue == nil {
            throw ResponseError.invalidParams(field: "params", reason: "must be an object, got \(params.typeName)")
        }
    }
}

/// Outgoing messages as JSON bytes: responses are written here so that the id is echoed verbatim.
public enum OutgoingMessage {
    public static func result(id: RequestID, _ result: JSONValue) -> [UInt8] {
        var out = envelope(id)
        out.append(contentsOf: #","result":"#.utf8)
        JSONWriter.write(result, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
    public static func error(id: RequestID, _ error: ResponseError) -> [UInt8] {
        var out = envelope(id)
        out.append(contentsOf: #","error":"#.utf8)
        JSONWriter.write(error.json, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
    public static func notification(_ method: String, _ params: JSONValue) -> [UInt8] {
        JSONWriter.bytes(.object(["jsonrpc": "2.0", "method": .string(method), "params": params]))
    }
    /// A batch answer: the responses in one JSON array.
    public static func batch(_ responses: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (k, r) in responses.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: r)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    private static func envelope(_ id: RequestID) -> [UInt8] {
        var out = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        id.write(to: &out)
        return out
    }
}
