import Foundation
import KindredCore
import KindredProtocol

/// Typed requests and results to and from the service's JSON values, through Foundation's coders:
/// the service then reads them exactly as it reads a message from the wire.
enum JSONBridge {
    static func value<T: Encodable>(_ request: T) throws -> JSONValue {
        if let json = request as? KindredJSON { return json.value }
        let data: Data
        do { data = try JSONEncoder().encode(request) } catch {
            throw KindredError(code: .invalidParams, message: "invalid params: \(error)")
        }
        return try JSONParser.parse([UInt8](data))
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, method: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(JSONWriter.bytes(value)))
        } catch {
            throw KindredError(code: .internalError, message: "\(method): the result does not have the shape \(T.self) expects: \(error)")
        }
    }
}

extension KindredJSON {
    var value: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return n.rounded() == n && abs(n) < 9e15 ? .int(Int64(n)) : .double(n)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(\.value))
        case .object(let o): return .object(JSONObject(o.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value) }))
        }
    }
}
