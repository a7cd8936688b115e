import Grouping
import KindredCore
import JSONRPC

/// `patterns/map`: `owner`, `category?`, `from?`, `to?`.
struct PatternsMap: MethodParams {
    static let method = "patterns/map"
    static let kind = MethodKind.read
    static let keys = ["owner", "category", "from", "to"]

    var owner: String
    var query: FindingsQuery

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        query = FindingsQuery()
        query.period = try PatternsFindings.period(p, "from", "to")
        query.category = try p.optionalName("category", maxLength: 128)
        query.includeRelated = true
    }
}

/// `patterns/timeline`: `owner`, `from?`, `to?`, `compareFrom?`, `compareTo?`, `category?`, `limit?` (findings drawn,
/// 1–24, default 6).
struct PatternsTimeline: MethodParams {
    static let method = "patterns/timeline"
    static let kind = MethodKind.read
    static let keys = ["owner", "from", "to", "compareFrom", "compareTo", "category", "limit"]
    static let maxLimit: Int64 = 24

    var owner: String
    var query: FindingsQuery
    var limit: Int

    init(_ p: Params) throws(ResponseError) {
        owner = try p.name("owner")
        query = FindingsQuery()
        query.period = try PatternsFindings.period(p, "from", "to")
        query.comparePeriod = try PatternsFindings.period(p, "compareFrom", "compareTo")
        query.category = try p.optionalName("category", maxLength: 128)
        query.includeRelated = false
        limit = Int(try p.optionalInt("limit", range: 1...Self.maxLimit) ?? 6)
    }
}
