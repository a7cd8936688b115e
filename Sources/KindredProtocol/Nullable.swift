/// An optional field that is always in the answer: null when it has no value, where other optional
/// fields are left out (a group's `label`, a correction's `note`). Reads as absent or null alike.
/// A request's `@Nullable` param must be sent, and null means something (`patterns/setLabel`'s
/// `label`: null clears the label), so its catalogue entry has it required (`MethodSpec`).
@propertyWrapper
public struct Nullable<Value: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        wrappedValue = c.decodeNil() ? nil : try c.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let wrappedValue { try c.encode(wrappedValue) } else { try c.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A `Nullable` field may be absent (an older server's answer).
    public func decode<V>(_: Nullable<V>.Type, forKey key: Key) throws -> Nullable<V> {
        try decodeIfPresent(Nullable<V>.self, forKey: key) ?? Nullable(wrappedValue: nil)
    }
}

/// What `ShapeDecoder` knows a `Nullable` field by.
protocol NullableField {}

extension Nullable: NullableField {}
