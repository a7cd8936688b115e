import Foundation
import Grouping
import KindredCore
import JSONRPC
import KindredProtocol

/// `patterns/refresh`: `owner?` (every owner when absent).
extension PatternsRefresh: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String?

        init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
    }
}

/// `patterns/rebuild`: `owner?`, as `patterns/refresh`.
extension PatternsRebuild: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String?

        init(_ p: Params) throws(ResponseError) { owner = try p.optionalName("owner") }
    }
}

/// `patterns/findings`: `owner`, `from?`, `to?`, `compareFrom?`, `compareTo?`, `category?`, `kinds?`,
/// `includeRelated?`, `limit?`, `cursor?`, `evidenceLimit?`.
extension PatternsFindings: CheckedRequest {
    struct Checked: MethodParams {
        static let maxLimit = 1000

        var owner: String
        var query: FindingsQuery
        /// Only records of these kinds count, in the denominators and as evidence.
        var kinds: [String]?
        /// Findings per page (all when absent), and where the page starts.
        var limit: Int?
        var offset: Int
        /// Evidence items per finding (all when absent).
        var evidenceLimit: Int?

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            query = FindingsQuery()
            query.period = try Self.period(p, "from", "to")
            query.comparePeriod = try Self.period(p, "compareFrom", "compareTo")
            query.category = try p.optionalName("category", maxLength: 128)
            query.includeRelated = try p.optionalBool("includeRelated") ?? true
            kinds = try p.names("kinds")
            if let kinds, kinds.isEmpty { throw p.fail("kinds", "must name at least one kind (leave it out for every kind)") }
            limit = try Self.count(p, "limit")
            evidenceLimit = try Self.count(p, "evidenceLimit")
            offset = 0
            if let cursor = try p.optionalString("cursor") {
                guard let n = FindingsCursor.offset(cursor) else { throw p.fail("cursor", "is not a cursor this method returned") }
                offset = n
            }
        }

        static func count(_ p: Params, _ key: String) throws(ResponseError) -> Int? {
            guard let n = try p.optionalInt(key) else { return nil }
            guard n >= 1 else { throw p.fail(key, "must be at least 1") }
            guard n <= Int64(maxLimit) else { throw ResponseError.limitExceeded(field: key, limit: maxLimit) }
            return Int(n)
        }

        static func period(_ p: Params, _ fromKey: String, _ toKey: String) throws(ResponseError) -> Period? {
            let from = try p.optionalDate(fromKey), to = try p.optionalDate(toKey)
            guard from != nil || to != nil else { return nil }
            let period = Period(from: from ?? "0000-01-01", to: to ?? "9999-12-31")
            guard period.from <= period.to else { throw p.fail(toKey, "must not be before \(fromKey)") }
            return period
        }
    }
}

/// The `cursor` of a findings page: the position of the next finding, as `f` + decimal digits.
enum FindingsCursor {
    static func string(_ offset: Int) -> String { "f\(offset)" }

    static func offset(_ cursor: String) -> Int? {
        guard cursor.hasPrefix("f"), cursor.count <= 12, let n = Int(cursor.dropFirst()), n >= 0, String(n) == cursor.dropFirst() else { return nil }
        return n
    }
}

