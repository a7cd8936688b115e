import KindredCore
import KindredProtocol

/// The protocol's JSON values from and to the service's: numbers become integers where they are
/// whole (and within ±9e15, where a Double still counts exactly), objects' keys are sorted.
extension KindredJSON {
    public init(_ v: JSONValue) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(KindredJSON.init))
        case .object(let o): self = .object(Dictionary(o.map { ($0.key, KindredJSON($0.value)) }, uniquingKeysWith: { $1 }))
        }
    }

    public var value: JSONValue {
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
