/// The JSON shape of a protocol type as its `Decodable` conformance reads it (`ShapeDecoder`), with
/// the notes its fields carry (`FieldNotes`): what a method's catalogue entry (`MethodSpec`) and the
/// MCP tools' JSON Schemas are derived from.
public indirect enum Shape: Sendable, Equatable {
    case string, integer, number, boolean
    /// Any JSON value (`KindredJSON`).
    case any
    case array(Shape)
    /// An object of any keys (a dictionary).
    case map
    /// An object of these fields, in the order the type reads them.
    case object(fields: [Field], note: String?)

    public struct Field: Sendable, Equatable {
        public var name: String
        public var shape: Shape
        public var required: Bool
        /// Read as `@Nullable`: optional, yet always present (null when it has no value).
        public var nullable = false
        public var note: FieldNote?
    }

    /// The shape of the field `name` of an object (`correction` of `patterns/correct`).
    public func field(_ name: String) -> Shape? {
        guard case .object(let fields, _) = self else { return nil }
        return fields.first { $0.name == name }?.shape
    }

    /// The object without the fields `names`.
    public func dropping(_ names: [String]) -> Shape {
        guard case .object(let fields, let note) = self else { return self }
        return .object(fields: fields.filter { !names.contains($0.name) }, note: note)
    }

    /// The object with the fields `names` required.
    public func requiring(_ names: [String]) -> Shape {
        guard case .object(let fields, let note) = self else { return self }
        return .object(fields: fields.map { f in var f = f; f.required = f.required || names.contains(f.name); return f }, note: note)
    }
}

extension Shape {
    /// The shape of `type` as its `init(from:)` reads it, and the notes (`Type.field`) that name no
    /// field of their type.
    public static func of<T: Decodable>(_ type: T.Type) throws -> (shape: Shape, strays: [String]) {
        try ShapeDecoder.shape(of: type)
    }

    /// The fields of an object type, each once, in the order its `init(from:)` first reads them: a
    /// method's params and result fields (`MethodSpec`), the keys a nested params object may hold.
    /// A type that does not read as an object of named fields is a mistake of ours.
    public static func fields<T: Decodable>(of type: T.Type) -> [Field] {
        guard case .object(let fields, _)? = try? of(type).shape else {
            preconditionFailure("\(T.self) does not read as an object of named fields")
        }
        var seen: Set<String> = []
        return fields.filter { seen.insert($0.name).inserted }
    }

    /// The names of `fields(of:)`.
    public static func fieldNames<T: Decodable>(of type: T.Type) -> [String] { fields(of: type).map(\.name) }
}
