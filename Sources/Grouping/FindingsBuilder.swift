/// Findings: counts of distinct eligible records with denominators and linked evidence.
extension PatternEngine {
    /// Builds the findings of the active groups of `state`.
    ///
    /// - `eligibleRecords`: record id → date of every eligible record of the owner (same owner,
    ///   permission on, analysed at its current revision). Only members whose record is eligible
    ///   are counted; deleted and excluded records leave both numerator and denominator.
    /// - A group is recurring with ≥ `recurringThreshold` distinct records in the period, related
    ///   with exactly `relatedThreshold` (when `includeRelated`).
    /// - A comparison is suppressed when either denominator is below `minComparisonDenominator`.
    public static func findings(
        state: PatternState, occurrences: [Int64: Occurrence], eligibleRecords: [String: String?],
        query: FindingsQuery = FindingsQuery(), config: GroupingConfig = GroupingConfig()
    ) -> FindingsReport {
        func inPeriod(_ date: String?, _ p: Period?) -> Bool { p.map { $0.contains(date) } ?? true }
        func denominator(_ p: Period?) -> Int { eligibleRecords.values.filter { inPeriod($0, p) }.count }
        func evidence(_ g: Group, _ p: Period?) -> [Evidence] {
            var byRecord: [String: Evidence] = [:]
            for m in g.members {
                guard let o = occurrences[m.occurrenceID], let entry = eligibleRecords[o.recordID] else { continue }
                let date = entry ?? o.recordDate
                guard inPeriod(date, p), byRecord[o.recordID] == nil else { continue }
                byRecord[o.recordID] = Evidence(recordID: o.recordID, recordRevision: o.recordRevision,
                                                occurrenceID: o.id, excerpt: o.excerpt, date: date)
            }
            return byRecord.values.sorted { ($0.date ?? "", $0.recordID) < ($1.date ?? "", $1.recordID) }
        }

        let denom = denominator(query.period)
        let compareDenom = query.comparePeriod.map { denominator($0) }
        let active = state.sortedGroups.filter {
            $0.state == .active && (query.category == nil || $0.category == query.category)
        }
        let labels = generatedLabels(state: state, occurrences: occurrences, config: config)
        var out: [Finding] = []
        for g in active {
            let ev = evidence(g, query.period)
            let kind: FindingKind
            if ev.count >= config.recurringThreshold { kind = .recurring }
            else if query.includeRelated, ev.count == config.relatedThreshold { kind = .related }
            else { continue }
            let fraction = Fraction(count: ev.count, denominator: denom)
            var comparison: Comparison?
            if let cp = query.comparePeriod, let cd = compareDenom {
                let previous = Fraction(count: evidence(g, cp).count, denominator: cd)
                let suppressed = denom < config.minComparisonDenominator || cd < config.minComparisonDenominator
                var trend: Trend?
                if !suppressed {
                    trend = Trend.between(fraction, previous)
                }
                comparison = Comparison(current: fraction, previous: previous, suppressed: suppressed, trend: trend)
            }
            let label = labels[g.id] ?? GeneratedLabel(description: "", keywords: [])
            out.append(Finding(
                groupID: g.id, groupVersion: g.version, category: g.category, kind: kind, fraction: fraction,
                comparison: comparison, label: label,
                clientLabel: g.labelVersion == g.version ? g.label : nil, evidence: ev,
                summary: "\(ev.count) of \(denom) eligible records in this period"))
        }
        out.sort { ($0.kind == .recurring ? 0 : 1, -$0.fraction.count, $0.groupID) < ($1.kind == .recurring ? 0 : 1, -$1.fraction.count, $1.groupID) }
        return FindingsReport(findings: out, denominator: denom, insufficientHistory: !out.contains { $0.kind == .recurring })
    }

    /// Deterministic labels of every group with a medoid (`Labels`): a key phrase of the group
    /// within its category (the clause naming its shared element when it has one), then c-TF-IDF
    /// keywords; at most 60 characters in all.
    public static func generatedLabels(
        state: PatternState, occurrences: [Int64: Occurrence], config: GroupingConfig = GroupingConfig()
    ) -> [Int64: GeneratedLabel] {
        var byScope: [Scope: [(id: Int64, descriptions: [String], element: String?)]] = [:]
        let elements = SharedElementJudge.make(config: config, occurrences: occurrences)
        for g in state.sortedGroups {
            guard let m = g.medoid, let mo = occurrences[m] else { continue }
            // The medoid first, then the examples, then the other members.
            let order = [m] + g.exemplars.filter { $0 != m } + g.memberIDs.filter { $0 != m && !g.exemplars.contains($0) }
            let rest = order.dropFirst().compactMap { occurrences[$0]?.description }
            byScope[g.scope, default: []].append((g.id, [mo.description] + rest, elements?.sharedElement(of: g)))
        }
        var out: [Int64: GeneratedLabel] = [:]
        for scope in byScope.keys.sorted() {
            for (gid, label) in Labels.labels(byScope[scope]!, keywordCount: config.keywordCount) { out[gid] = label }
        }
        return out
    }
}
