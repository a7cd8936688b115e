import Grouping
import JSONRPC
import KindredProtocol

/// The reading methods of patterns: `patterns/findings`, `patterns/themes`, `patterns/map` and
/// `patterns/timeline` share their fields' rules (`AskedPeriod` for `from`/`to` pairs).
enum PatternQueryRules {
    /// At most this many findings or themes a page, and evidence items a finding.
    static let maxPage = 1000
    /// `patterns/timeline` draws 1 to 24 findings.
    static let timelineLimit: ClosedRange<Int64> = 1...24

    static let common: [String: ReadRule] = [
        "owner": .name(), "category": .category, "from": .date, "to": .date, "compareFrom": .date, "compareTo": .date,
    ]

    /// `kinds`, when sent, names at least one kind.
    static func kinds(_ kinds: [String]?) throws(ResponseError) {
        if let kinds, kinds.isEmpty { throw .invalidParams(field: "kinds", reason: "must name at least one kind (leave it out for every kind)") }
    }
}

/// A `from`/`to` pair as asked: nil when neither is sent, open on a side not sent.
enum AskedPeriod {
    static func of(_ from: String?, _ to: String?, fromKey: String = "from", toKey: String = "to") throws(ResponseError) -> Period? {
        guard from != nil || to != nil else { return nil }
        let period = Period(from: from ?? "0000-01-01", to: to ?? "9999-12-31")
        guard period.from <= period.to else { throw .invalidParams(field: toKey, reason: "must not be before \(fromKey)") }
        return period
    }
}

/// `patterns/findings`: `owner`, `from?`, `to?`, `compareFrom?`, `compareTo?`, `category?`, `kinds?`,
/// `includeRelated?`, `limit?`, `cursor?`, `evidenceLimit?`.
extension PatternsFindings: ServedRequest {
    static var readRules: [String: ReadRule] {
        PatternQueryRules.common.merging([
            "limit": .count(max: PatternQueryRules.maxPage), "evidenceLimit": .count(max: PatternQueryRules.maxPage), "cursor": .cursor(.findings),
        ]) { $1 }
    }

    func check(_ rules: ParamRules) throws(ResponseError) {
        _ = try query()
        try PatternQueryRules.kinds(kinds)
    }

    func query() throws(ResponseError) -> FindingsQuery {
        FindingsQuery(period: try AskedPeriod.of(from, to), comparePeriod: try AskedPeriod.of(compareFrom, compareTo, fromKey: "compareFrom", toKey: "compareTo"),
                      category: category, includeRelated: includeRelated ?? true)
    }

    /// Where the page starts.
    var offset: Int { cursor.flatMap(PageCursor.findings.offset) ?? 0 }
}

/// `patterns/themes`: `owner`, `category?`, `kinds?`, `from?`, `to?`, `limit?`, `cursor?`.
extension PatternsThemes: ServedRequest {
    static var readRules: [String: ReadRule] {
        PatternQueryRules.common.merging(["limit": .count(max: PatternQueryRules.maxPage), "cursor": .cursor(.themes)]) { $1 }
    }

    func check(_ rules: ParamRules) throws(ResponseError) {
        try PatternQueryRules.kinds(kinds)
        _ = try AskedPeriod.of(from, to)
    }

    var period: Period? { try? AskedPeriod.of(from, to) }
    var offset: Int { cursor.flatMap(PageCursor.themes.offset) ?? 0 }
}

/// `patterns/map`: `owner`, `category?`, `from?`, `to?`.
extension PatternsMap: ServedRequest {
    static var readRules: [String: ReadRule] { PatternQueryRules.common }

    func check(_ rules: ParamRules) throws(ResponseError) { _ = try query() }

    func query() throws(ResponseError) -> FindingsQuery {
        FindingsQuery(period: try AskedPeriod.of(from, to), category: category, includeRelated: true)
    }
}

/// `patterns/timeline`: `owner`, `from?`, `to?`, `compareFrom?`, `compareTo?`, `category?`, `limit?` (findings drawn,
/// 1–24, default 6).
extension PatternsTimeline: ServedRequest {
    static var readRules: [String: ReadRule] { PatternQueryRules.common.merging(["limit": .range(PatternQueryRules.timelineLimit)]) { $1 } }

    func check(_ rules: ParamRules) throws(ResponseError) { _ = try query() }

    func query() throws(ResponseError) -> FindingsQuery {
        FindingsQuery(period: try AskedPeriod.of(from, to), comparePeriod: try AskedPeriod.of(compareFrom, compareTo, fromKey: "compareFrom", toKey: "compareTo"),
                      category: category, includeRelated: false)
    }
}

/// `patterns/refresh`: `owner?` (every owner when absent).
extension PatternsRefresh: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `patterns/rebuild`: `owner?`, as `patterns/refresh`.
extension PatternsRebuild: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {}
}
