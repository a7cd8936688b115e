import KindredCore
import KindredProtocol

/// KindredJSON from and to the service's JSON values.
extension KindredJSON {
    init(_ v: JSONValue) {
        switch v {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .number(Double(i))
        case .double(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(KindredJSON.init))
        case .object(let o): self = .object(Dictionary(uniqueKeysWithValues: o.map { ($0.key, KindredJSON($0.value)) }))
        }
    }
}

extension KindredProgress {
    init(_ v: JSONValue) {
        kind = Kind(rawValue: v["kind"]?.stringValue ?? "") ?? .report
        title = v["title"]?.stringValue
        message = v["message"]?.stringValue
        percentage = v["percentage"]?.intValue.map { Int($0) }
    }
}
