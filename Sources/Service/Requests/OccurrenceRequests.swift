import KindredCore
import JSONRPC

/// `occurrences/put`: `owner`, `recordId`, `revision`, `occurrences: [{category, description, excerpt, tags?}]`.
struct OccurrencesPut: MethodParams {
    static let method = "occurrences/put"
    static let kind = MethodKind.write
    static let keys = ["owner", "recordId", "revision", "occurrences"]
    static let occurrenceKeys = ["category", "description", "excerpt", "tags"]
    static let maxOccurrences = 1000

    struct Item: Sendable {
        var index: Int
        var category: String
        var description: String
        var excerpt: String
        var tags: [String]
    }

    var owner: String
    var recordID: String
    var revision: Int64
    var occurrences: [Item]

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        recordID = try p.name("recordId")
        revision = try p.positiveInt("revision")
        let items = try p.array("occurrences")
        guard items.count <= Self.maxOccurrences else { throw .limitExceeded(field: "occurrences", limit: Self.maxOccurrences) }
        occurrences = []
        occurrences.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else { throw ResponseError.invalidParams(field: "occurrences[\(i)]", reason: "must be an object") }
            let q = try Params(object: o, prefix: "occurrences[\(i)]", keys: Self.occurrenceKeys, what: "an occurrence field", rules: p.rules)
            let category = try q.name("category", maxLength: 128)
            let description = try q.nonEmptyString("description", maxLength: 4096)
            let excerpt = try q.string("excerpt")
            guard excerpt.utf8.count <= 16_384 else { throw q.fail("excerpt", "must be at most 16384 bytes") }
            occurrences.append(Item(index: i, category: category, description: description, excerpt: excerpt, tags: try q.names("tags") ?? []))
        }
    }
}
