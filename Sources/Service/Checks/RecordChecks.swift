import KindredCore
import JSONRPC
import KindredProtocol

/// `records/delete`: `owner`, `ids` (names, by their type).
extension RecordsDelete: ServedRequest {
    /// Nothing beyond its types and its owner's name.
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `records/purgeTombstones`: `owner?` (every owner when absent), `before` (a date or timestamp).
extension RecordsPurgeTombstones: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {
        try FieldRules.date(before, field: "before")
    }
}

/// `records/upsert`: `owner`, `waitForIndex?`, `records` (see `RecordInput.read` for one record),
/// read in that order. Every record is read: each one's first problem is listed (`data.errors`),
/// and one bad record refuses the whole request.
extension RecordsUpsert: ServedRequest {
    static let maxRecords = 10_000

    static func read(_ d: ParamsDecoder) throws -> Self {
        let owner = try d.required("owner", String.self, rule: .name())
        let wait = try d.optional("waitForIndex", Bool.self)
        var list = try d.member("records").unkeyedContainer()
        guard (list.count ?? 0) <= maxRecords else { throw ResponseError.limitExceeded(field: "records", limit: maxRecords) }
        var records: [RecordInput] = []
        var problems: [(index: Int, field: String, reason: String)] = []
        var seen: [String: Int] = [:]
        while !list.isAtEnd {
            let i = list.currentIndex
            do {
                let r = try list.decode(RecordInput.self)
                if let first = seen[r.id] {
                    problems.append((i, "records[\(i)].id", "duplicate id '\(r.id)' (also at index \(first))"))
                } else {
                    seen[r.id] = i
                    records.append(r)
                }
            } catch {
                let e = ParamsDecoder.responseError(error)
                problems.append((i, e.data?["field"]?.stringValue ?? "records[\(i)]", e.data?["reason"]?.stringValue ?? e.message))
            }
        }
        if let first = problems.first {
            let list: [JSONValue] = problems.map { .object(["index": .int(Int64($0.index)), "field": .string($0.field), "reason": .string($0.reason)]) }
            throw ResponseError(
                code: .invalidParams,
                message: "invalid params: \(first.field): \(first.reason)" + (problems.count > 1 ? " (and \(problems.count - 1) more)" : "") + "; nothing was written",
                data: ["field": .string(first.field), "reason": .string(first.reason), "index": .int(Int64(first.index)), "errors": .array(list)])
        }
        return RecordsUpsert(owner: owner, records: records, waitForIndex: wait)
    }

    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `records/get`: `owner`, `id`, `passages?` (list the record's passages).
extension RecordsGet: ServedRequest {
    static var readRules: [String: ReadRule] { ["owner": .name(), "id": .name()] }
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `records/setPermissions`: `owner`, `id`, `permissions {search?, patterns?}` (absent ones are kept).
extension RecordsSetPermissions: ServedRequest {
    static var readRules: [String: ReadRule] { ["owner": .name(), "id": .name()] }
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

