import Testing
import KindredProtocol
@testable import Service

/// The catalogue's params keys are the request types' own: each type, decoded by a probe that
/// answers every key, asks for exactly the spec's keys, in the spec's order, required where the
/// spec says so. So the spec cannot drift from the type that `ParamsDecoder` decodes.
@Suite struct CatalogueKeysTests {
    /// Keys that must be sent but may be null, so their type holds them as optional.
    static let requiredButNullable = ["patterns/setLabel": ["label"]]

    @Test func everyRequestTypeAsksForItsSpecsKeys() throws {
        for type in KindredMethods.all {
            let probe = KeyProbe()
            _ = try type.init(from: probe)
            let method = type.spec.method
            #expect(probe.asked.keys == type.spec.keys, "\(method)")
            let nullable = Self.requiredButNullable[method] ?? []
            #expect(probe.asked.required == type.spec.requiredKeys.filter { !nullable.contains($0) }, "\(method)")
            #expect(nullable.allSatisfy { !probe.asked.required.contains($0) && type.spec.requiredKeys.contains($0) }, "\(method)")
        }
    }

    /// The top-level keys a type's `init(from:)` reads, and which of them it requires; nested values
    /// are answered with empty ones.
    final class KeyProbe: Decoder {
        var asked: (keys: [String], required: [String]) = ([], [])
        let depth: Int
        var codingPath: [any CodingKey] = []
        var userInfo: [CodingUserInfoKey: Any] { [:] }
        init(depth: Int = 0) { self.depth = depth }

        func note(_ key: String, required: Bool) {
            guard depth == 0, !asked.keys.contains(key) else { return }
            asked.keys.append(key)
            if required { asked.required.append(key) }
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> { KeyedDecodingContainer(Object<Key>(probe: self)) }
        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Empty() }
        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single() }

        struct Object<Key: CodingKey>: KeyedDecodingContainerProtocol {
            let probe: KeyProbe
            var codingPath: [any CodingKey] { [] }
            var allKeys: [Key] { [] }
            func contains(_ key: Key) -> Bool { probe.note(key.stringValue, required: false); return false }
            func decodeNil(forKey key: Key) throws -> Bool { probe.note(key.stringValue, required: false); return true }
            func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T { try value(T.self, key) }
            private func value<T: Decodable>(_: T.Type, _ key: Key) throws -> T {
                probe.note(key.stringValue, required: true)
                return try T(from: KeyProbe(depth: probe.depth + 1))
            }
            func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try value(Bool.self, key) }
            func decode(_: String.Type, forKey key: Key) throws -> String { try value(String.self, key) }
            func decode(_: Double.Type, forKey key: Key) throws -> Double { try value(Double.self, key) }
            func decode(_: Float.Type, forKey key: Key) throws -> Float { try value(Float.self, key) }
            func decode(_: Int.Type, forKey key: Key) throws -> Int { try value(Int.self, key) }
            func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try value(Int8.self, key) }
            func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try value(Int16.self, key) }
            func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try value(Int32.self, key) }
            func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try value(Int64.self, key) }
            func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try value(UInt.self, key) }
            func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(UInt8.self, key) }
            func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(UInt16.self, key) }
            func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(UInt32.self, key) }
            func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(UInt64.self, key) }
            func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
                probe.note(key.stringValue, required: true)
                return KeyedDecodingContainer(Object<N>(probe: KeyProbe(depth: probe.depth + 1)))
            }
            func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { probe.note(key.stringValue, required: true); return Empty() }
            func superDecoder() throws -> any Decoder { probe }
            func superDecoder(forKey key: Key) throws -> any Decoder { KeyProbe(depth: probe.depth + 1) }
        }

        struct Empty: UnkeyedDecodingContainer {
            var codingPath: [any CodingKey] { [] }
            var count: Int? { 0 }
            var isAtEnd: Bool { true }
            var currentIndex: Int { 0 }
            mutating func decodeNil() throws -> Bool { true }
            mutating func decode<T: Decodable>(_: T.Type) throws -> T { try T(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Bool.Type) throws -> Bool { try Bool(from: KeyProbe(depth: 1)) }
            mutating func decode(_: String.Type) throws -> String { try String(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Double.Type) throws -> Double { try Double(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Float.Type) throws -> Float { try Float(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Int.Type) throws -> Int { try Int(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Int8.Type) throws -> Int8 { try Int8(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Int16.Type) throws -> Int16 { try Int16(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Int32.Type) throws -> Int32 { try Int32(from: KeyProbe(depth: 1)) }
            mutating func decode(_: Int64.Type) throws -> Int64 { try Int64(from: KeyProbe(depth: 1)) }
            mutating func decode(_: UInt.Type) throws -> UInt { try UInt(from: KeyProbe(depth: 1)) }
            mutating func decode(_: UInt8.Type) throws -> UInt8 { try UInt8(from: KeyProbe(depth: 1)) }
            mutating func decode(_: UInt16.Type) throws -> UInt16 { try UInt16(from: KeyProbe(depth: 1)) }
            mutating func decode(_: UInt32.Type) throws -> UInt32 { try UInt32(from: KeyProbe(depth: 1)) }
            mutating func decode(_: UInt64.Type) throws -> UInt64 { try UInt64(from: KeyProbe(depth: 1)) }
            mutating func nestedContainer<N: CodingKey>(keyedBy type: N.Type) throws -> KeyedDecodingContainer<N> {
                KeyedDecodingContainer(Object<N>(probe: KeyProbe(depth: 1)))
            }
            mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { Empty() }
            mutating func superDecoder() throws -> any Decoder { KeyProbe(depth: 1) }
        }

        struct Single: SingleValueDecodingContainer {
            var codingPath: [any CodingKey] { [] }
            func decodeNil() -> Bool { false }
            func decode(_: Bool.Type) throws -> Bool { false }
            func decode(_: String.Type) throws -> String { "" }
            func decode(_: Double.Type) throws -> Double { 0 }
            func decode(_: Float.Type) throws -> Float { 0 }
            func decode(_: Int.Type) throws -> Int { 0 }
            func decode(_: Int8.Type) throws -> Int8 { 0 }
            func decode(_: Int16.Type) throws -> Int16 { 0 }
            func decode(_: Int32.Type) throws -> Int32 { 0 }
            func decode(_: Int64.Type) throws -> Int64 { 0 }
            func decode(_: UInt.Type) throws -> UInt { 0 }
            func decode(_: UInt8.Type) throws -> UInt8 { 0 }
            func decode(_: UInt16.Type) throws -> UInt16 { 0 }
            func decode(_: UInt32.Type) throws -> UInt32 { 0 }
            func decode(_: UInt64.Type) throws -> UInt64 { 0 }
            func decode<T: Decodable>(_: T.Type) throws -> T { try T(from: KeyProbe(depth: 1)) }
        }
    }
}
