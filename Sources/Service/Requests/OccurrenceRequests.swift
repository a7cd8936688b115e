import KindredCore
import JSONRPC
import KindredProtocol

/// `occurrences/put`: `owner` and either one record (`recordId`, `revision`, `occurrences`) or many
/// (`items: [{recordId, revision, occurrences}]`), each occurrence `{category, description, excerpt, tags?}`.
extension OccurrencesPut: CheckedRequest {
    struct Checked: MethodParams {
        static let recordKeys = ["recordId", "revision", "occurrences"]
        static let maxOccurrences = 1000
        static let maxItems = 1000
        static let maxTotalOccurrences = 10_000

        struct Item: Sendable {
            var index: Int
            var category: String
            var description: String
            var excerpt: String
            var tags: [String]
        }

        /// One record revision and the occurrences found in it.
        struct RecordItem: Sendable {
            var recordID: String
            var revision: Int64
            var occurrences: [Item]
        }

        var owner: String
        /// The records, in request order; one when the single-record form was used.
        var records: [RecordItem]
        /// True when the request used `items` (the answer then lists a result per item).
        var bulk: Bool

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            if p.has("items") {
                if let single = Self.recordKeys.first(where: { p.has($0) }) {
                    throw p.fail(single, "cannot be combined with items (put one record with recordId, revision and occurrences, or many with items)")
                }
                let list = try p.array("items")
                guard !list.isEmpty else { throw p.fail("items", "must not be empty") }
                guard list.count <= Self.maxItems else { throw .limitExceeded(field: "items", limit: Self.maxItems) }
                bulk = true
                records = []
                records.reserveCapacity(list.count)
                var seen: [String: Int] = [:]
                var total = 0
                for (i, element) in list.enumerated() {
                    guard case .object(let o) = element else { throw ResponseError.invalidParams(field: "items[\(i)]", reason: "must be an object") }
                    let q = try Params(object: o, prefix: "items[\(i)]", keys: Self.recordKeys, what: "an item field", rules: p.rules)
                    let item = try Self.record(q)
                    if let first = seen[item.recordID] {
                        throw q.fail("recordId", "names the same record as items[\(first)]")
                    }
                    seen[item.recordID] = i
                    total += item.occurrences.count
                    guard total <= Self.maxTotalOccurrences else { throw .limitExceeded(field: "items[\(i)].occurrences", limit: Self.maxTotalOccurrences) }
                    records.append(item)
                }
            } else {
                bulk = false
                records = [try Self.record(p)]
            }
        }

        private static func record(_ p: Params) throws(ResponseError) -> RecordItem {
            let recordID = try p.name("recordId")
            let revision = try p.positiveInt("revision")
            let items = try p.array("occurrences")
            guard items.count <= Self.maxOccurrences else { throw .limitExceeded(field: p.path("occurrences"), limit: Self.maxOccurrences) }
            var occurrences: [Item] = []
            occurrences.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                let field = p.path("occurrences[\(i)]")
                guard case .object(let o) = item else { throw ResponseError.invalidParams(field: field, reason: "must be an object") }
                let q = try Params(object: o, prefix: field, keys: OccurrenceInput.fields, what: "an occurrence field", rules: p.rules)
                let category = try q.name("category", maxLength: 128)
                let description = try q.nonEmptyString("description", maxLength: 4096)
                let excerpt = try q.string("excerpt")
                guard excerpt.utf8.count <= 16_384 else { throw q.fail("excerpt", "must be at most 16384 bytes") }
                occurrences.append(Item(index: i, category: category, description: description, excerpt: excerpt, tags: try q.names("tags") ?? []))
            }
            return RecordItem(recordID: recordID, revision: revision, occurrences: occurrences)
        }
    }
}
