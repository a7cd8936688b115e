import KindredCore
import JSONRPC
import KindredProtocol

/// A record of `records/upsert`, read in the order its rules were always checked (`id`, `revision`,
/// `text`, …), so the first problem named is the same.
extension RecordInput: ParamsReadable {
    static let maxTextBytes = 1 << 20

    static func read(_ d: ParamsDecoder) throws -> Self {
        guard case .object(let o) = d.value else { throw d.fail("must be an object") }
        try FieldRules.refuseUnknown(o, keys: fields, prefix: d.field, what: "a record field")
        let id = try d.required("id", String.self, rule: .name())
        let revision = try d.required("revision", Int.self, rule: .positive)
        let text = try d.required("text", String.self)
        let t = d.member("text")
        guard text.utf8.count <= maxTextBytes else { throw t.fail("must be at most \(maxTextBytes) bytes") }
        // A record without words matches nothing and, embedded, sits at the same point as every other
        // empty record: a blank query then finds it at score 1.
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw t.fail("must not be empty or blank") }
        return RecordInput(
            id: id, revision: revision, text: text, kind: try d.optional("kind", rule: .name()), date: try d.optional("date", rule: .date),
            tags: try d.optional("tags"), metadata: try d.optional("metadata"), permissions: try d.optional("permissions"),
            vector: try d.optional("vector"))
    }

    /// The record as the store keeps it (permissions not sent are granted).
    var record: Record {
        Record(id: id, revision: Int64(revision), text: text, kind: kind, date: date, tags: tags ?? [], metadata: metadata?.json ?? [:],
               permissions: KindredCore.Permissions(search: permissions?.search ?? true, patterns: permissions?.patterns ?? true),
               vector: vector)
    }
}

extension RecordInput.Permissions: ParamsObject {
    static let role = "a permission"
}

/// Metadata: an object whose keys are names, flat.
extension Metadata: ParamsReadable {
    static func read(_ d: ParamsDecoder) throws -> Self {
        var out = Metadata()
        for (k, v) in try FieldRules.openObject(d.present(), field: d.field) {
            switch v {
            case .null: out[k] = .null
            case .bool(let b): out[k] = .bool(b)
            case .int(let i): out[k] = .integer(i)
            case .double(let x): out[k] = .number(x)
            case .string(let s): out[k] = .string(s)
            case .array, .object:
                throw ResponseError.invalidParams(field: "\(d.field).\(k)", reason: "metadata must be flat: values are strings, numbers, booleans or null")
            }
        }
        return out
    }

    /// As the store keeps it.
    var json: JSONObject {
        JSONObject(entries.map { e in
            switch e.value {
            case .null: (e.key, .null)
            case .bool(let b): (e.key, .bool(b))
            case .integer(let i): (e.key, .int(i))
            case .number(let x): (e.key, .double(x))
            case .string(let s): (e.key, .string(s))
            }
        })
    }

    /// From the store (values that are not flat were never stored; one would read as null).
    init(_ o: JSONObject) {
        self.init(o.map { k, v in
            switch v {
            case .bool(let b): Entry(key: k, value: .bool(b))
            case .int(let i): Entry(key: k, value: .integer(i))
            case .double(let x): Entry(key: k, value: .number(x))
            case .string(let s): Entry(key: k, value: .string(s))
            case .null, .array, .object: Entry(key: k, value: .null)
            }
        })
    }
}
