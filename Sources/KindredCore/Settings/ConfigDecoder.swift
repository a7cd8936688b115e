/// Decodes settings from a `Config`: a settings struct's property names are the keys of its area
/// (`SearchSettings.defaultLimit` ← `search.defaultLimit`), and a property that is itself a struct
/// is the area its name gives (`Settings.search` ← `search.*`). Only what settings hold is
/// supported: Bool, Int, Double, String and nested areas.
struct ConfigDecoder: Decoder {
    let config: Config
    /// The dotted prefix of the area being decoded ("" at the top, "search." below it).
    let prefix: String
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Area<Key>(config: config, prefix: prefix, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw Self.unsupported(codingPath, "a list") }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw Self.unsupported(codingPath, "a single value") }

    static func unsupported(_ path: [any CodingKey], _ what: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: path, debugDescription: "settings hold no \(what)"))
    }

    /// The keys of one area.
    struct Area<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let config: Config
        let prefix: String
        let codingPath: [any CodingKey]
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { config.values[prefix + key.stringValue] != nil }

        private func value<T>(_ key: Key, _ read: (JSONValue) -> T?) throws -> T {
            let name = prefix + key.stringValue
            guard let v = config.values[name] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no configuration key \(name)"))
            }
            guard let t = read(v) else {
                throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath + [key], debugDescription: "\(name) is a \(v.typeName)"))
            }
            return t
        }

        func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try value(key) { $0.boolValue } }
        func decode(_: String.Type, forKey key: Key) throws -> String { try value(key) { $0.stringValue } }
        func decode(_: Double.Type, forKey key: Key) throws -> Double { try value(key) { $0.doubleValue } }
        func decode(_: Int.Type, forKey key: Key) throws -> Int { try value(key) { $0.intValue.map { Int($0) } } }

        /// A nested area: the struct named by `key`, decoded from the keys below it.
        func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
            try T(from: ConfigDecoder(config: config, prefix: prefix + key.stringValue + ".", codingPath: codingPath + [key]))
        }

        func decodeNil(forKey key: Key) throws -> Bool { false }
        func decode(_: Float.Type, forKey key: Key) throws -> Float { throw unsupported(key) }
        func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { throw unsupported(key) }
        func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { throw unsupported(key) }
        func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { throw unsupported(key) }
        func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { throw unsupported(key) }
        func decode(_: UInt.Type, forKey key: Key) throws -> UInt { throw unsupported(key) }
        func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { throw unsupported(key) }
        func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { throw unsupported(key) }
        func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { throw unsupported(key) }
        func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { throw unsupported(key) }

        private func unsupported(_ key: Key) -> DecodingError { ConfigDecoder.unsupported(codingPath + [key], "value of this type") }

        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: Key) throws -> KeyedDecodingContainer<N> {
            KeyedDecodingContainer(Area<N>(config: config, prefix: prefix + key.stringValue + ".", codingPath: codingPath + [key]))
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ConfigDecoder.unsupported(codingPath + [key], "a list") }
        func superDecoder() throws -> any Decoder { ConfigDecoder(config: config, prefix: prefix, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            ConfigDecoder(config: config, prefix: prefix + key.stringValue + ".", codingPath: codingPath + [key])
        }
    }
}
