import JSONRPC
import KindredProtocol

/// `occurrences/put`: `owner` and either one record (`recordId`, `revision`, `occurrences`) or many
/// (`items: [{recordId, revision, occurrences}]`), each occurrence `{category, description, excerpt, tags?}`.
extension OccurrencesPut: ServedRequest {
    static let maxOccurrences = 1000
    static let maxItems = 1000
    static let maxTotalOccurrences = 10_000

    static var readRules: [String: ReadRule] { Item.readRules.merging(["owner": .name()]) { $1 } }

    func check(_ rules: ParamRules) throws(ResponseError) {
        guard let items else {
            if recordId == nil { throw .invalidParams(field: "recordId", reason: "is required") }
            if revision == nil { throw .invalidParams(field: "revision", reason: "is required") }
            guard let occurrences else { throw .invalidParams(field: "occurrences", reason: "is required") }
            guard occurrences.count <= Self.maxOccurrences else { throw .limitExceeded(field: "occurrences", limit: Self.maxOccurrences) }
            return
        }
        if let single = [("recordId", recordId != nil), ("revision", revision != nil), ("occurrences", occurrences != nil)].first(where: \.1) {
            throw .invalidParams(field: single.0,
                                 reason: "cannot be combined with items (put one record with recordId, revision and occurrences, or many with items)")
        }
        guard !items.isEmpty else { throw .invalidParams(field: "items", reason: "must not be empty") }
        guard items.count <= Self.maxItems else { throw .limitExceeded(field: "items", limit: Self.maxItems) }
        var seen: [String: Int] = [:]
        var total = 0
        for (i, item) in items.enumerated() {
            guard item.occurrences.count <= Self.maxOccurrences else { throw .limitExceeded(field: "items[\(i)].occurrences", limit: Self.maxOccurrences) }
            if let first = seen[item.recordId] { throw .invalidParams(field: "items[\(i)].recordId", reason: "names the same record as items[\(first)]") }
            seen[item.recordId] = i
            total += item.occurrences.count
            guard total <= Self.maxTotalOccurrences else { throw .limitExceeded(field: "items[\(i)].occurrences", limit: Self.maxTotalOccurrences) }
        }
    }

    /// The records to put, in request order: the one of the single form, or the items.
    var puts: [Item] {
        items ?? [Item(recordId: recordId ?? "", revision: revision ?? 0, occurrences: occurrences ?? [])]
    }
}

extension OccurrencesPut.Item: ParamsObject {
    /// Its properties.
    static let fields = Shape.fieldNames(of: Self.self)
    static let role = "an item field"
    static var readRules: [String: ReadRule] { ["recordId": .name(), "revision": .positive] }
}

extension OccurrenceInput: ParamsObject {
    static let role = "an occurrence field"
    static var readRules: [String: ReadRule] { ["category": .category, "description": .nonEmpty(maxLength: 4096), "excerpt": .maxBytes(16_384)] }
}
