import KindredCore
import JSONRPC

/// An object of a request's params, read by key for `ParamsDecoder`: each value is decoded by a
/// decoder at the key's path, so it fails naming it.
struct ParamsObjectReader<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let decoder: ParamsDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }

    /// Absent and null are alike.
    func contains(_ key: Key) -> Bool { object[key.stringValue].map { !$0.isNull } ?? false }
    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

    func at(_ key: Key) -> ParamsDecoder {
        decoder.child(key, field: decoder.field.isEmpty ? key.stringValue : "\(decoder.field).\(key.stringValue)")
    }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try at(key).decode(Bool.self) }
    func decode(_: String.Type, forKey key: Key) throws -> String {
        let field = at(key)
        let s = try field.decode(String.self)
        try decoder.readRules[key.stringValue]?.check(s, field: field.field)
        return s
    }

    /// A key that must be sent though it may be null (`ReadRule.present`, a `@Nullable` param) fails when absent.
    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        try refuseAbsent(key)
        return contains(key) ? try decode(String.self, forKey: key) : nil
    }
    func decodeIfPresent<T: Decodable>(_: T.Type, forKey key: Key) throws -> T? {
        try refuseAbsent(key)
        return contains(key) ? try decode(T.self, forKey: key) : nil
    }
    private func refuseAbsent(_ key: Key) throws {
        if case .present(let absent)? = decoder.readRules[key.stringValue], object[key.stringValue] == nil {
            throw ResponseError.invalidParams(field: at(key).field, reason: absent)
        }
    }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try at(key).decode(Double.self) }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try at(key).decode(Float.self) }
    func decode(_: Int.Type, forKey key: Key) throws -> Int {
        let field = at(key)
        let i = try field.decode(Int.self)
        try decoder.readRules[key.stringValue]?.check(Int64(i), field: field.field)
        return i
    }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try at(key).decode(Int8.self) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try at(key).decode(Int16.self) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try at(key).decode(Int32.self) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try at(key).decode(Int64.self) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try at(key).decode(UInt.self) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try at(key).decode(UInt8.self) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try at(key).decode(UInt16.self) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try at(key).decode(UInt32.self) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try at(key).decode(UInt64.self) }
    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T { try at(key).decode(T.self) }

    func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
        try at(key).container(keyedBy: N.self)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try at(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { at(key) }
}

/// An array of a request's params, read in order for `ParamsDecoder`: element `i` fails naming
/// `field[i]`.
struct ParamsListReader: UnkeyedDecodingContainer {
    let array: [JSONValue]
    let decoder: ParamsDecoder
    private(set) var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    init(array: [JSONValue], decoder: ParamsDecoder) {
        self.array = array
        self.decoder = decoder
    }

    private struct Index: CodingKey {
        var intValue: Int?
        var stringValue: String { "\(intValue!)" }
        init(_ i: Int) { intValue = i }
        init?(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }

    /// The next element's decoder, moving past it.
    private mutating func next() throws -> ParamsDecoder {
        guard !isAtEnd else { throw decoder.fail("has fewer elements than expected") }
        defer { currentIndex += 1 }
        return decoder.child(Index(currentIndex), field: "\(decoder.field)[\(currentIndex)]")
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, array[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool { try next().decode(Bool.self) }
    mutating func decode(_: String.Type) throws -> String { try next().decode(String.self) }
    mutating func decode(_: Double.Type) throws -> Double { try next().decode(Double.self) }
    mutating func decode(_: Float.Type) throws -> Float { try next().decode(Float.self) }
    mutating func decode(_: Int.Type) throws -> Int { try next().decode(Int.self) }
    mutating func decode(_: Int8.Type) throws -> Int8 { try next().decode(Int8.self) }
    mutating func decode(_: Int16.Type) throws -> Int16 { try next().decode(Int16.self) }
    mutating func decode(_: Int32.Type) throws -> Int32 { try next().decode(Int32.self) }
    mutating func decode(_: Int64.Type) throws -> Int64 { try next().decode(Int64.self) }
    mutating func decode(_: UInt.Type) throws -> UInt { try next().decode(UInt.self) }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try next().decode(UInt8.self) }
    mutating func decode(_: UInt16.Type) throws -> UInt16 { try next().decode(UInt16.self) }
    mutating func decode(_: UInt32.Type) throws -> UInt32 { try next().decode(UInt32.self) }
    mutating func decode(_: UInt64.Type) throws -> UInt64 { try next().decode(UInt64.self) }
    mutating func decode<T: Decodable>(_: T.Type) throws -> T { try next().decode(T.self) }

    mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
        try next().container(keyedBy: N.self)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
