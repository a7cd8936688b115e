import KindredProtocol
public import KindredCore
public import JSONRPC

/// What travels between router and node, and what the write log holds: `{"method", "params"}` for a
/// request (the log entry of a write is this, canonical: keys in this order, params as received;
/// a router adds `relay`, which the log never holds), `{"result"}` or `{"error"}` for its answer.
public enum Wire {
    public static func request(_ method: String, _ params: JSONValue?, relay: Relay? = nil) -> [UInt8] {
        var pairs: [(String, JSONValue)] = [("method", .string(method)), ("params", params ?? .object(JSONObject()))]
        if let relay { pairs.append(("relay", relay.json)) }
        return JSONWriter.bytes(.object(JSONObject(pairs)))
    }

    /// A write's entry in the log: the request, and `prev`, the sequence of the shard's write before
    /// it (the expected last sequence its append is fenced by). A copy applies an entry only on top
    /// of `prev`: one whose `prev` is not the last write it applied follows writes it lacks.
    public static func logEntry(_ method: String, _ params: JSONValue?, prev: UInt64) -> [UInt8] {
        JSONWriter.bytes(.object(JSONObject([("method", .string(method)), ("params", params ?? .object(JSONObject())),
                                             ("prev", .int(Int64(prev)))])))
    }

    /// The `prev` of a log entry (nil in an entry written before entries had one).
    static func previous(_ entry: [UInt8]) -> UInt64? {
        guard let v = try? JSONParser.parse(entry), let prev = v["prev"]?.intValue, prev >= 0 else { return nil }
        return UInt64(prev)
    }

    public static func decodeRequest(_ bytes: [UInt8]) throws(ResponseError) -> (method: String, params: JSONValue?) {
        let (method, params, _) = try decodeRelayed(bytes)
        return (method, params)
    }

    static func decodeRelayed(_ bytes: [UInt8]) throws(ResponseError) -> (method: String, params: JSONValue?, relay: Relay?) {
        guard let v = try? JSONParser.parse(bytes), let o = v.objectValue, let method = o["method"]?.stringValue else {
            throw ResponseError.invalidRequest("a cluster request must be an object with a method")
        }
        return (method, o["params"], Relay(o["relay"]))
    }

    public static func answer(_ outcome: Result<JSONValue, ResponseError>) -> [UInt8] {
        switch outcome {
        case .success(let r): return JSONWriter.bytes(.object(JSONObject([("result", r)])))
        case .failure(let e): return JSONWriter.bytes(.object(JSONObject([("error", e.json)])))
        }
    }

    public static func decodeAnswer(_ bytes: [UInt8]) throws(ResponseError) -> JSONValue {
        guard let v = try? JSONParser.parse(bytes), let o = v.objectValue else {
            throw ResponseError.internalError("a node answered something that is not JSON")
        }
        if let e = o["error"]?.objectValue, let code = e["code"]?.intValue {
            throw ResponseError(code: ErrorCode(rawValue: Int(code)), message: e["message"]?.stringValue ?? "", data: e["data"])
        }
        guard let r = o["result"] else { throw ResponseError.internalError("a node's answer holds neither result nor error") }
        return r
    }
}
