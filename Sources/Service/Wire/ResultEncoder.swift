import KindredCore
import JSONRPC
import KindredProtocol

/// Encodes a method's result (its protocol type) into the `JSONValue` the route answers: keys in
/// the order the type encodes them, integers as integers (`KindredJSON` numbers too, when whole).
/// An optional without a value is left out, unless the type that holds it is `ExplicitNulls`: then
/// it is sent as null.
struct ResultEncoder: Encoder, SingleValueEncodingContainer {
    /// What one encoded value becomes; containers fill it in place.
    final class Box {
        var value: JSONValue = .null
        var members: [(String, Box)]?
        var elements: [Box]?

        var json: JSONValue {
            if let members { return .object(JSONObject(members.map { ($0.0, $0.1.json) })) }
            if let elements { return .array(elements.map(\.json)) }
            return value
        }
    }

    let box: Box
    /// Whether the type being encoded here sends its absent optionals as null.
    let nulls: Bool
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `value` as JSON. Our result types cannot fail to encode; one that did is an internal error.
    static func json<T: Encodable>(_ value: T) throws(ResponseError) -> JSONValue {
        let box = Box()
        do { try encode(value, into: box, codingPath: []) } catch { throw .internalError("encoding \(T.self): \(error)") }
        return box.json
    }

    static func encode<T: Encodable>(_ value: T, into box: Box, codingPath: [any CodingKey]) throws {
        if let json = value as? KindredJSON { box.value = json.value; return }
        try value.encode(to: ResultEncoder(box: box, nulls: value is ExplicitNulls, codingPath: codingPath))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if box.members == nil { box.members = [] }
        return KeyedEncodingContainer(ResultObjectWriter<Key>(box: box, nulls: nulls, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if box.elements == nil { box.elements = [] }
        return ResultListWriter(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: single values

    func encodeNil() { box.value = .null }
    func encode(_ v: Bool) { box.value = .bool(v) }
    func encode(_ v: String) { box.value = .string(v) }
    func encode(_ v: Double) { box.value = .double(v) }
    func encode(_ v: Float) { box.value = .double(Double(v)) }
    func encode(_ v: Int) { box.value = .int(Int64(v)) }
    func encode(_ v: Int8) { box.value = .int(Int64(v)) }
    func encode(_ v: Int16) { box.value = .int(Int64(v)) }
    func encode(_ v: Int32) { box.value = .int(Int64(v)) }
    func encode(_ v: Int64) { box.value = .int(v) }
    func encode(_ v: UInt) { box.value = .int(Int64(clamping: v)) }
    func encode(_ v: UInt8) { box.value = .int(Int64(v)) }
    func encode(_ v: UInt16) { box.value = .int(Int64(v)) }
    func encode(_ v: UInt32) { box.value = .int(Int64(v)) }
    func encode(_ v: UInt64) { box.value = .int(Int64(clamping: v)) }
    func encode<T: Encodable>(_ v: T) throws { try Self.encode(v, into: box, codingPath: codingPath) }
}

/// Marks a result type whose optional fields are always in the answer: null when there is no value,
/// where other types leave the key out (`usage/daily`'s `limits`, unset, are null).
protocol ExplicitNulls {}

/// An object of a result, written member by member in order for `ResultEncoder`.
struct ResultObjectWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ResultEncoder.Box
    let nulls: Bool
    var codingPath: [any CodingKey]

    private func member(_ key: Key) -> ResultEncoder.Box {
        let b = ResultEncoder.Box()
        box.members!.append((key.stringValue, b))
        return b
    }

    mutating func encodeNil(forKey key: Key) { member(key).value = .null }
    mutating func encode(_ v: Bool, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: String, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Double, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Float, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Int, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Int8, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Int16, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Int32, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: Int64, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: UInt, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: UInt8, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: UInt16, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: UInt32, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode(_ v: UInt64, forKey key: Key) { ResultEncoder(box: member(key), nulls: nulls).encode(v) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try ResultEncoder.encode(value, into: member(key), codingPath: codingPath + [key])
    }

    /// Every `encodeIfPresent` comes here: nil is left out, or null in an `ExplicitNulls` type.
    private mutating func maybe<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else if nulls { encodeNil(forKey: key) }
    }

    mutating func encodeIfPresent(_ v: Bool?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: String?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Double?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Float?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Int?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Int8?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Int16?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Int32?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: Int64?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: UInt?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: UInt8?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: UInt16?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: UInt32?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent(_ v: UInt64?, forKey key: Key) throws { try maybe(v, key) }
    mutating func encodeIfPresent<T: Encodable>(_ v: T?, forKey key: Key) throws { try maybe(v, key) }

    mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) -> KeyedEncodingContainer<N> {
        ResultEncoder(box: member(key), nulls: nulls, codingPath: codingPath + [key]).container(keyedBy: N.self)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ResultEncoder(box: member(key), nulls: nulls, codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { ResultEncoder(box: box, nulls: nulls, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { ResultEncoder(box: member(key), nulls: nulls, codingPath: codingPath + [key]) }
}

/// An array of a result, written element by element for `ResultEncoder`.
struct ResultListWriter: UnkeyedEncodingContainer {
    let box: ResultEncoder.Box
    var codingPath: [any CodingKey]
    var count: Int { box.elements!.count }

    private func element() -> ResultEncoder.Box {
        let b = ResultEncoder.Box()
        box.elements!.append(b)
        return b
    }

    mutating func encodeNil() { element().value = .null }
    mutating func encode(_ v: Bool) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: String) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Double) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Float) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Int) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Int8) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Int16) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Int32) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: Int64) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: UInt) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: UInt8) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: UInt16) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: UInt32) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode(_ v: UInt64) { ResultEncoder(box: element(), nulls: false).encode(v) }
    mutating func encode<T: Encodable>(_ value: T) throws { try ResultEncoder.encode(value, into: element(), codingPath: codingPath) }

    mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) -> KeyedEncodingContainer<N> {
        ResultEncoder(box: element(), nulls: false, codingPath: codingPath).container(keyedBy: N.self)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ResultEncoder(box: element(), nulls: false, codingPath: codingPath).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { ResultEncoder(box: element(), nulls: false, codingPath: codingPath) }
}
