/// Reads the `Shape` of a `Decodable` type by running its `init(from:)` over no data: every key the
/// type reads is a field, required when read with `decode` and optional with `decodeIfPresent`
/// (marked nullable when it is a `@Nullable`), and the type it reads there is the field's shape.
/// An array reads one element; a dictionary (a type that asks for its keys) is an object of any
/// keys. Notes come from `FieldNotes`. `MethodSpec` and the MCP tools' schemas both read types here.
final class ShapeDecoder: Decoder {
    /// What a read found, shared by the decoders of nested types.
    final class Reading {
        /// `Type.field` of every note that names no field of its type.
        var strays: [String] = []
    }

    /// The shape of `type`, and the notes that name no field.
    static func shape<T: Decodable>(of type: T.Type) throws -> (shape: Shape, strays: [String]) {
        let reading = Reading()
        return (try read(type, reading).shape, reading.strays)
    }

    static func read<T: Decodable>(_ type: T.Type, _ reading: Reading) throws -> (shape: Shape, value: T) {
        if let (shape, value) = scalar(type) { return (shape, value) }
        let decoder = ShapeDecoder(reading)
        let value = try T(from: decoder)
        return (decoder.shape(of: type), value)
    }

    /// The shape and a stand-in value of a type read as one JSON value.
    private static func scalar<T>(_ type: T.Type) -> (Shape, T)? {
        let found: (Shape, Any)? = switch type {
        case is String.Type: (.string, "")
        case is Bool.Type: (.boolean, false)
        case is Int.Type: (.integer, 0)
        case is Int64.Type: (.integer, Int64(0))
        case is Double.Type: (.number, 0.0)
        case is Float.Type: (.number, Float(0))
        case is KindredJSON.Type: (.any, KindredJSON.null)
        default: nil
        }
        guard let (shape, value) = found, let typed = value as? T else { return nil }
        return (shape, typed)
    }

    let reading: Reading
    var fields: [Shape.Field] = []
    var askedForKeys = false
    var element: Shape?
    var single: Shape?
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init(_ reading: Reading) { self.reading = reading }

    func shape<T>(of type: T.Type) -> Shape {
        if let single { return single }
        if let element { return .array(element) }
        if askedForKeys { return .map }
        let notes = type as? any FieldNotes.Type
        let noted = notes?.fieldNotes ?? [:]
        for name in noted.keys.sorted() where !fields.contains(where: { $0.name == name }) {
            reading.strays.append("\(T.self).\(name)")
        }
        return .object(fields: fields.map { f in var f = f; f.note = noted[f.name]; return f }, note: notes?.typeNote)
    }

    /// Reads the field `key` as `T`; nil when it is optional.
    func field<T: Decodable>(_ type: T.Type, _ key: any CodingKey, required: Bool) throws -> T? {
        let (shape, value) = try Self.read(type, reading)
        fields.append(Shape.Field(name: key.stringValue, shape: shape, required: required, nullable: T.self is any NullableField.Type))
        return required ? value : nil
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedShapes<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { UnkeyedShapes(decoder: self) }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleShape(decoder: self) }

    static func unsupported(_ what: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "a schema cannot describe \(what)"))
    }
}

/// The fields of an object, as its type reads them.
struct KeyedShapes<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ShapeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { decoder.askedForKeys = true; return [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try required(type, key) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try required(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try required(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try required(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try required(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try required(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try decoder.field(type, key, required: false) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decoder.field(type, key, required: false) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decoder.field(type, key, required: false) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decoder.field(type, key, required: false) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decoder.field(type, key, required: false) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decoder.field(type, key, required: false) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decoder.field(type, key, required: false) }

    /// The one path every `decode` overload takes.
    private func required<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        guard let value = try decoder.field(type, key, required: true) else { throw ShapeDecoder.unsupported("\(T.self)") }
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw ShapeDecoder.unsupported("a nested container")
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ShapeDecoder.unsupported("a nested container") }
    func superDecoder() throws -> any Decoder { throw ShapeDecoder.unsupported("a super decoder") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw ShapeDecoder.unsupported("a super decoder") }
}

/// The items of an array: one is read, for its shape.
struct UnkeyedShapes: UnkeyedDecodingContainer {
    let decoder: ShapeDecoder
    var codingPath: [any CodingKey] { [] }
    var count: Int? { nil }
    var isAtEnd: Bool { decoder.element != nil }
    var currentIndex: Int { decoder.element == nil ? 0 : 1 }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (shape, value) = try ShapeDecoder.read(type, decoder.reading)
        decoder.element = shape
        return value
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw ShapeDecoder.unsupported("a nested container")
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ShapeDecoder.unsupported("a nested container") }
    mutating func superDecoder() throws -> any Decoder { throw ShapeDecoder.unsupported("a super decoder") }
}

/// A value read as one JSON value (a `RawRepresentable` enum's raw value).
struct SingleShape: SingleValueDecodingContainer {
    let decoder: ShapeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (shape, value) = try ShapeDecoder.read(type, decoder.reading)
        decoder.single = shape
        return value
    }
}
