import Grouping
import KindredCore
import JSONRPC
import KindredProtocol

/// `patterns/map`: `owner`, `category?`, `from?`, `to?`.
extension PatternsMap: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var query: FindingsQuery

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            query = FindingsQuery()
            query.period = try PatternsFindings.Checked.period(p, "from", "to")
            query.category = try p.optionalName("category", maxLength: 128)
            query.includeRelated = true
        }
    }
}

/// `patterns/timeline`: `owner`, `from?`, `to?`, `compareFrom?`, `compareTo?`, `category?`, `limit?` (findings drawn,
/// 1–24, default 6).
extension PatternsTimeline: CheckedRequest {
    struct Checked: MethodParams {
        static let maxLimit: Int64 = 24

        var owner: String
        var query: FindingsQuery
        var limit: Int

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            query = FindingsQuery()
            query.period = try PatternsFindings.Checked.period(p, "from", "to")
            query.comparePeriod = try PatternsFindings.Checked.period(p, "compareFrom", "compareTo")
            query.category = try p.optionalName("category", maxLength: 128)
            query.includeRelated = false
            limit = Int(try p.optionalInt("limit", range: 1...Self.maxLimit) ?? 6)
        }
    }
}
