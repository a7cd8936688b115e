import KindredProtocol

/// The JSON shape of a protocol type as its `Decodable` conformance reads it (`ShapeDecoder`), with
/// the notes its fields carry (`FieldNotes`): what a JSON Schema is generated from.
indirect enum Shape: Sendable, Equatable {
    case string, integer, number, boolean
    /// Any JSON value (`KindredJSON`).
    case any
    case array(Shape)
    /// An object of any keys (a dictionary).
    case map
    /// An object of these fields, in the order the type reads them.
    case object(fields: [Field], note: String?)

    struct Field: Sendable, Equatable {
        var name: String
        var shape: Shape
        var required: Bool
        var note: FieldNote?
    }

    /// The shape of the field `name` of an object (`correction` of `patterns/correct`).
    func field(_ name: String) -> Shape? {
        guard case .object(let fields, _) = self else { return nil }
        return fields.first { $0.name == name }?.shape
    }

    /// The object without the fields `names`.
    func dropping(_ names: [String]) -> Shape {
        guard case .object(let fields, let note) = self else { return self }
        return .object(fields: fields.filter { !names.contains($0.name) }, note: note)
    }

    /// The object with the fields `names` required.
    func requiring(_ names: [String]) -> Shape {
        guard case .object(let fields, let note) = self else { return self }
        return .object(fields: fields.map { f in var f = f; f.required = f.required || names.contains(f.name); return f }, note: note)
    }
}
