/// A record's metadata as sent and stored: flat (each value a string, a number, a boolean or null),
/// keys in the order they were sent, integers exact (above 2^53 too, where a Double is not).
public struct Metadata: Codable, Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// One value. A whole number and the same number with a fraction of zero are equal.
    public enum Value: Codable, Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
        ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
        case null
        case bool(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)

        public init(stringLiteral value: String) { self = .string(value) }
        public init(integerLiteral value: Int64) { self = .integer(value) }
        public init(floatLiteral value: Double) { self = .number(value) }
        public init(booleanLiteral value: Bool) { self = .bool(value) }
        public init(nilLiteral: ()) { self = .null }

        /// The number, whole or not.
        public var number: Double? {
            switch self {
            case .integer(let i): return Double(i)
            case .number(let d): return d
            default: return nil
            }
        }

        public static func == (a: Value, b: Value) -> Bool {
            switch (a, b) {
            case (.null, .null): return true
            case let (.bool(x), .bool(y)): return x == y
            case let (.string(x), .string(y)): return x == y
            case let (.integer(x), .integer(y)): return x == y
            case let (.integer(i), .number(d)), let (.number(d), .integer(i)): return Int64(exactly: d) == i
            case let (.number(x), .number(y)): return x == y
            default: return false
            }
        }

        public func hash(into h: inout Hasher) {
            switch self {
            case .null: h.combine(0)
            case .bool(let b): h.combine(b)
            case .string(let s): h.combine(s)
            case .integer, .number: h.combine(number)
            }
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let i = try? c.decode(Int64.self) { self = .integer(i) }
            else if let d = try? c.decode(Double.self) { self = .number(d) }
            else { self = .string(try c.decode(String.self)) }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .null: try c.encodeNil()
            case .bool(let b): try c.encode(b)
            case .integer(let i): try c.encode(i)
            case .number(let d): try c.encode(d)
            case .string(let s): try c.encode(s)
            }
        }
    }

    public struct Entry: Sendable, Hashable {
        public var key: String
        public var value: Value
        public init(key: String, value: Value) { self.key = key; self.value = value }
    }

    /// In the order sent; a key at most once.
    public private(set) var entries: [Entry] = []

    public init() {}
    public init(_ entries: [Entry]) { for e in entries { self[e.key] = e.value } }
    public init(dictionaryLiteral elements: (String, Value)...) { self.init(elements.map { Entry(key: $0.0, value: $0.1) }) }

    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }
    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

    public subscript(key: String) -> Value? {
        get { entries.first { $0.key == key }?.value }
        set {
            let i = entries.firstIndex { $0.key == key }
            switch (i, newValue) {
            case let (i?, v?): entries[i].value = v
            case let (i?, nil): entries.remove(at: i)
            case let (nil, v?): entries.append(Entry(key: key, value: v))
            case (nil, nil): break
            }
        }
    }

    private struct CodingName: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingName.self)
        for key in c.allKeys { self[key.stringValue] = try c.decode(Value.self, forKey: key) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingName.self)
        for e in entries { try c.encode(e.value, forKey: CodingName(stringValue: e.key)) }
    }
}
