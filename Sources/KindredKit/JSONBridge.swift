import Foundation
import KindredCore
import KindredProtocol
import Service

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
