/// What a schema generated from a protocol type (the MCP tools' `inputSchema` and `outputSchema`)
/// says of one field beyond what the type's `Codable` conformance tells: the prose a reader of the
/// schema (a model choosing arguments) reads, and the values and bounds the service accepts. The
/// field's name, JSON type and whether it is required come from the type itself.
public struct FieldNote: Sendable, Hashable, ExpressibleByStringLiteral {
    public var description: String?
    /// The only values a string field takes.
    public var oneOf: [String]?
    /// The bounds of an integer field.
    public var range: ClosedRange<Int>?
    /// The fewest items of an array field.
    public var minItems: Int?

    public init(_ description: String? = nil, oneOf: [String]? = nil, range: ClosedRange<Int>? = nil, minItems: Int? = nil) {
        self.description = description; self.oneOf = oneOf; self.range = range; self.minItems = minItems
    }

    public init(stringLiteral description: String) { self.init(description) }
}

/// A protocol type whose fields carry notes for generated schemas, kept beside the type.
public protocol FieldNotes {
    /// The type as a whole, for a field of this type that has no note of its own (`filters`).
    static var typeNote: String? { get }
    /// By wire name; every name is a field of the type (tests hold the notes to the types).
    static var fieldNotes: [String: FieldNote] { get }
}

extension FieldNotes {
    public static var typeNote: String? { nil }
}
