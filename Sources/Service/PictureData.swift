import Grouping
import KindredCore
import JSONRPC
import Storage

/// What both pictures start from: the owner's findings for a query, with the engine state and the
/// eligible records they were counted over (read in one go, so both agree).
struct PictureData {
    var patterns: OwnerPatterns
    /// Record id → date of every eligible record (excluded and deleted records are not here).
    var eligible: [String: String?]
    var report: FindingsReport

    /// The label drawn for a finding: the client-written one while valid, else the generated phrase.
    static func label(_ f: Finding) -> String {
        let text = f.clientLabel ?? f.label.description
        return text.isEmpty ? "group \(f.groupID)" : text
    }

    /// The hover text of a finding's marks.
    static func detail(_ f: Finding) -> String {
        var s = "Group \(f.groupID) (\(f.category)): \(f.clientLabel ?? f.label.text)"
        s += " — \(f.fraction.count) of \(f.fraction.denominator) eligible records"
        return s
    }

    /// "from 2025-01-01 to 2025-06-30", "from 2025-01-01", "all records".
    static func describe(_ p: Period?) -> String {
        guard let p else { return "all records" }
        switch (p.from == "0000-01-01", p.to == "9999-12-31") {
        case (true, true): return "all records"
        case (true, false): return "up to \(p.to)"
        case (false, true): return "from \(p.from)"
        case (false, false): return "\(p.from) to \(p.to)"
        }
    }
}

extension KindredService {
    func pictureData(owner: String, query: FindingsQuery, withVectors: Bool, _ ctx: RequestContext) throws(ResponseError) -> PictureData {
        let config = patternConfig
        let version = indexVersion
        let (data, records) = try withPatternReader(owner: owner) { store in
            (try loadOwnerPatterns(store, owner: owner, withVectors: withVectors),
             try store.analysedRecords(owner: owner, indexVersion: version, includePassages: config.passageOccurrences))
        }
        try ctx.checkCancelled()
        var eligible: [String: String?] = [:]
        for r in records { eligible[r.id] = .some(r.date) }
        let report = PatternEngine.findings(state: data.state, occurrences: data.occurrences, eligibleRecords: eligible,
                                            query: query, config: config.grouping)
        return PictureData(patterns: data, eligible: eligible, report: report)
    }
}
