import KindredCore
import KindredProtocol

/// A `Shape` as JSON Schema, for the arguments of a call or for its answer. Arguments are objects
/// that refuse keys they do not name (the service refuses unknown params); in an answer an optional
/// field may be absent or null.
enum JSONSchema {
    enum Use { case arguments, answer }

    static func of(_ shape: Shape, for use: Use) -> JSONValue {
        switch shape {
        case .string: return ["type": "string"]
        case .integer: return ["type": "integer"]
        case .number: return ["type": "number"]
        case .boolean: return ["type": "boolean"]
        case .any: return .object([:])
        case .map: return ["type": "object"]
        case .array(let element): return ["type": "array", "items": of(element, for: use)]
        case .object(let fields, let note):
            var o: JSONObject = ["type": "object"]
            if use == .arguments { o["additionalProperties"] = false }
            if let note { o["description"] = .string(note) }
            let required = fields.filter(\.required).map(\.name)
            if !required.isEmpty { o["required"] = .from(required) }
            o["properties"] = .object(JSONObject(fields.map { ($0.name, property($0, for: use)) }))
            return .object(o)
        }
    }

    /// A field's schema with what its note says.
    static func property(_ field: Shape.Field, for use: Use) -> JSONValue {
        guard case .object(var o) = of(field.shape, for: use) else { return .null }
        if use == .answer, !field.required, let type = o["type"] { o["type"] = [type, "null"] }
        guard let note = field.note else { return .object(o) }
        if let values = note.oneOf { o["enum"] = .from(values) }
        if let range = note.range {
            o["minimum"] = .from(range.lowerBound)
            o["maximum"] = .from(range.upperBound)
        }
        if let n = note.minItems { o["minItems"] = .from(n) }
        if let text = note.description { o["description"] = .string(text) }
        return .object(o)
    }
}
