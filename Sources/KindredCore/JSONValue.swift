/// A JSON value that keeps the distinctions JSON-RPC needs: integers stay integers (`1` ≠ `1.0` ≠ `"1"`),
/// object member order is preserved for stable output.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// An ordered JSON object (insertion order kept; last duplicate key wins on lookup).
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    public private(set) var keys: [String] = []
    public private(set) var values: [JSONValue] = []
    private var index: [String: Int] = [:]

    public init() {}
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (k, v) in elements { self[k] = v }
    }
    public init(_ pairs: [(String, JSONValue)]) {
        for (k, v) in pairs { self[k] = v }
    }

    public subscript(key: String) -> JSONValue? {
        get { index[key].map { values[$0] } }
        set {
            if let i = index[key] {
                if let v = newValue { values[i] = v } else { remove(at: i) }
            } else if let v = newValue {
                index[key] = keys.count
                keys.append(key)
                values.append(v)
            }
        }
    }

    private mutating func remove(at i: Int) {
        keys.remove(at: i)
        values.remove(at: i)
        index = [:]
        for (j, k) in keys.enumerated() { index[k] = j }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    public func makeIterator() -> AnyIterator<(key: String, value: JSONValue)> {
        var i = 0
        return AnyIterator {
            guard i < keys.count else { return nil }
            defer { i += 1 }
            return (keys[i], values[i])
        }
    }

    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.keys == b.keys && a.values == b.values }
    public func hash(into h: inout Hasher) { h.combine(keys); h.combine(values) }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral s: String) { self = .string(s) }
    public init(integerLiteral i: Int64) { self = .int(i) }
    public init(booleanLiteral b: Bool) { self = .bool(b) }
    public init(arrayLiteral a: JSONValue...) { self = .array(a) }
    public init(dictionaryLiteral e: (String, JSONValue)...) { self = .object(JSONObject(e.map { ($0.0, $0.1) })) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral d: Double) { self = .double(d) }
}

extension JSONValue {
    public static func from(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
    public static func from(_ i: Int) -> JSONValue { .int(Int64(i)) }
    public static func from(_ a: [String]) -> JSONValue { .array(a.map { .string($0) }) }
    public static func from(_ v: [Float]) -> JSONValue { .array(v.map { .double(Double($0)) }) }
}
