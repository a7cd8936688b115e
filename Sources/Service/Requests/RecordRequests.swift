import KindredCore
import JSONRPC
import KindredProtocol

/// `records/upsert`: `owner`, `records` (see `RecordInput` for one record).
extension RecordsUpsert: CheckedRequest {
    struct Checked: MethodParams {
        static let maxRecords = 10_000

        var owner: String
        var records: [Record]
        /// Answer once every searchable record of the request is in the semantic index (or the timeout passed).
        var waitForIndex: Bool

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            waitForIndex = try p.optionalBool("waitForIndex") ?? false
            let items = try p.array("records")
            guard items.count <= Self.maxRecords else { throw .limitExceeded(field: "records", limit: Self.maxRecords) }
            records = try RecordInput.parse(items, rules: p.rules)
        }
    }
}

/// `records/get`: `owner`, `id`, `passages?` (list the record's passages).
extension RecordsGet: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var id: String
        var listPassages: Bool

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            id = try p.name("id")
            listPassages = try p.optionalBool("passages") ?? false
        }
    }
}

/// `records/setPermissions`: `owner`, `id`, `permissions {search?, patterns?}` (absent ones are kept).
extension RecordsSetPermissions: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var id: String
        var search: Bool?
        var patterns: Bool?

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            id = try p.name("id")
            guard let perm = try p.optionalObject("permissions", keys: RecordInput.Permissions.fields, what: "a permission") else {
                throw p.fail("permissions", "is required")
            }
            search = try perm.optionalBool("search")
            patterns = try perm.optionalBool("patterns")
        }
    }
}
