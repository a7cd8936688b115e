import KindredCore
import JSONRPC
import KindredProtocol

/// Validates the `records` of `records/upsert`. Collects every problem so the client sees them all;
/// one bad record refuses the whole request.
extension RecordInput {
    struct Problem { var index: Int; var field: String; var reason: String }

    static let maxTextBytes = 1 << 20

    static func parse(_ items: [JSONValue], rules: ParamRules) throws(ResponseError) -> [Record] {
        var records: [Record] = []
        var problems: [Problem] = []
        var seen: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            do throws(ResponseError) {
                let r = try parseOne(item, index: i, rules: rules)
                if let first = seen[r.id] {
                    problems.append(Problem(index: i, field: "records[\(i)].id", reason: "duplicate id '\(r.id)' (also at index \(first))"))
                } else {
                    seen[r.id] = i
                    records.append(r)
                }
            } catch {
                let field = error.data?["field"]?.stringValue ?? "records[\(i)]"
                let reason = error.data?["reason"]?.stringValue ?? error.message
                problems.append(Problem(index: i, field: field, reason: reason))
            }
        }
        if let first = problems.first {
            let list: [JSONValue] = problems.map { .object(["index": .int(Int64($0.index)), "field": .string($0.field), "reason": .string($0.reason)]) }
            throw ResponseError(
                code: .invalidParams,
                message: "invalid params: \(first.field): \(first.reason)" + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "") + "; nothing was written",
                data: ["field": .string(first.field), "reason": .string(first.reason), "index": .int(Int64(first.index)), "errors": .array(list)])
        }
        return records
    }

    static func parseOne(_ item: JSONValue, index i: Int, rules: ParamRules) throws(ResponseError) -> Record {
        guard case .object(let o) = item else { throw ResponseError.invalidParams(field: "records[\(i)]", reason: "must be an object") }
        let p = try Params(object: o, prefix: "records[\(i)]", keys: Self.fields, what: "a record field", rules: rules)
        let id = try p.name("id")
        let revision = try p.positiveInt("revision")
        let text = try p.string("text")
        guard text.utf8.count <= maxTextBytes else { throw p.fail("text", "must be at most \(maxTextBytes) bytes") }
        // A record without words matches nothing and, embedded, sits at the same point as every other
        // empty record: a blank query then finds it at score 1.
        guard text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { throw p.fail("text", "must not be empty or blank") }
        let kind = try p.optionalName("kind")
        let date = try p.optionalDate("date")
        let tags = try p.names("tags") ?? []
        var metadata: JSONObject = [:]
        if let m = try p.openObject("metadata") {
            for (k, v) in m {
                switch v {
                case .array, .object:
                    throw ResponseError.invalidParams(field: p.path("metadata") + "." + k,
                                                      reason: "metadata must be flat: values are strings, numbers, booleans or null")
                default: metadata[k] = v
                }
            }
        }
        var permissions = KindredCore.Permissions()
        if let perm = try p.optionalObject("permissions", keys: Permissions.fields, what: "a permission") {
            permissions.search = try perm.optionalBool("search") ?? true
            permissions.patterns = try perm.optionalBool("patterns") ?? true
        }
        let vector = try p.vector("vector")
        return Record(id: id, revision: revision, text: text, kind: kind, date: date, tags: tags, metadata: metadata,
                      permissions: permissions, vector: vector)
    }
}
