import Grouping
import Testing

@Suite struct FindingsTests {
    func eligible(_ occ: [Int64: Occurrence]) -> [String: String?] {
        var out: [String: String?] = [:]
        for o in occ.values { out[o.recordID] = o.recordDate }
        return out
    }

    @Test(arguments: [UInt64(51), 52, 53, 54])
    func countsEqualDistinctRecordsInEvidence(seed: UInt64) throws {
        let occ = Fixture.index(Fixture.synthetic(seed: seed, records: 80))
        let state = try Fixture.refresh(PatternState(), occ).state
        var records = eligible(occ)
        // Exclude a few records: they leave numerator and denominator.
        for r in ["r1", "r2", "r3", "r10"] { records[r] = nil }
        let period = Period(from: "2025-02-01", to: "2025-09-30")
        let report = PatternEngine.findings(state: state, occurrences: occ, eligibleRecords: records,
                                            query: FindingsQuery(period: period))
        #expect(!report.findings.isEmpty)
        let denom = records.values.filter { period.contains($0) }.count
        #expect(report.denominator == denom)
        for f in report.findings {
            #expect(f.fraction.count == Set(f.evidence.map(\.recordID)).count)
            #expect(f.fraction.count == f.evidence.count)
            #expect(f.fraction.denominator == denom)
            #expect(f.evidence.allSatisfy { records[$0.recordID] != nil && period.contains($0.date) })
            #expect(f.kind == (f.fraction.count >= 3 ? .recurring : .related))
            #expect(f.fraction.count >= 2)
            #expect(f.summary == "\(f.fraction.count) of \(denom) eligible records in this period")
            let g = try #require(state.groups[f.groupID])
            #expect(f.evidence.allSatisfy { g.memberIDs.contains($0.occurrenceID) })
        }
        #expect(report.insufficientHistory == !report.findings.contains { $0.kind == .recurring })
    }

    func smallHistory() throws -> (PatternState, [Int64: Occurrence]) {
        var xs: [Occurrence] = []
        // Situation "train": records r0..r5, three in January and three in June.
        let dates = ["2025-01-05", "2025-01-12", "2025-01-20", "2025-06-03", "2025-06-10", "2025-06-17"]
        for (i, d) in dates.enumerated() {
            xs.append(Fixture.occ(Int64(i + 1), record: "r\(i)", Fixture.vec(1, 0.05 * Float(i % 3), 0.03),
                                  description: "missing a departing train", date: d))
        }
        // Filler records in June (only eligible records, no pattern).
        for i in 0..<6 {
            xs.append(Fixture.occ(Int64(100 + i), record: "f\(i)", Fixture.vec(0, 0, 0, 0, 0, 0, Float(i + 1), 1, Float(i * i)),
                                  category: "place", description: "somewhere \(i)", date: "2025-06-2\(i)"))
        }
        let occ = Fixture.index(xs)
        return (try Fixture.refresh(PatternState(), occ).state, occ)
    }

    /// A trend word only for a difference beyond chance (two-proportion test at 95 %).
    @Test func trendWordsNeedADifferenceBeyondChance() {
        #expect(Trend.between(Fraction(count: 8, denominator: 163), Fraction(count: 8, denominator: 173)) == .aboutTheSame)
        #expect(Trend.between(Fraction(count: 5, denominator: 40), Fraction(count: 3, denominator: 40)) == .aboutTheSame)
        #expect(Trend.between(Fraction(count: 20, denominator: 100), Fraction(count: 5, denominator: 100)) == .moreOftenRecently)
        #expect(Trend.between(Fraction(count: 5, denominator: 100), Fraction(count: 20, denominator: 100)) == .lessOftenRecently)
        #expect(Trend.between(Fraction(count: 0, denominator: 10), Fraction(count: 0, denominator: 12)) == .aboutTheSame)
        #expect(Trend.between(Fraction(count: 3, denominator: 9), Fraction(count: 3, denominator: 3)) == .lessOftenRecently)
    }

    @Test func comparisonShowsBothFractionsAndTrend() throws {
        let (state, occ) = try smallHistory()
        let report = PatternEngine.findings(
            state: state, occurrences: occ, eligibleRecords: eligible(occ),
            query: FindingsQuery(period: Period(from: "2025-06-01", to: "2025-06-30"),
                                 comparePeriod: Period(from: "2025-01-01", to: "2025-01-31"), category: "person"),
            config: GroupingConfig(minComparisonDenominator: 3))
        let f = try #require(report.findings.first)
        #expect(f.fraction == Fraction(count: 3, denominator: 9))
        let c = try #require(f.comparison)
        #expect(c.previous == Fraction(count: 3, denominator: 3))
        #expect(!c.suppressed)
        #expect(c.trend == .lessOftenRecently)
        #expect(f.label.description == "missing a departing train")
    }

    @Test func smallDenominatorSuppressesComparison() throws {
        let (state, occ) = try smallHistory()
        let report = PatternEngine.findings(
            state: state, occurrences: occ, eligibleRecords: eligible(occ),
            query: FindingsQuery(period: Period(from: "2025-06-01", to: "2025-06-30"),
                                 comparePeriod: Period(from: "2025-01-01", to: "2025-01-31")))
        let c = try #require(report.findings.first?.comparison)
        #expect(c.suppressed)
        #expect(c.trend == nil)
        #expect(c.previous.denominator == 3)
    }

    @Test func deletedRecordsLeaveCountsAndHistoryCanBecomeInsufficient() throws {
        var (state, occ) = try smallHistory()
        var records = eligible(occ)
        for id: Int64 in [2, 3, 4, 5] {
            records[occ[id]!.recordID] = nil
            occ[id] = nil
            state = PatternEngine.removeOccurrences([id], from: state, occurrences: occ).state
        }
        let report = PatternEngine.findings(state: state, occurrences: occ, eligibleRecords: records,
                                            query: FindingsQuery(category: "person"))
        #expect(report.findings.count == 1)
        #expect(report.findings.first?.kind == .related)
        #expect(report.insufficientHistory)
        #expect(report.denominator == 8)
        let noRelated = PatternEngine.findings(state: state, occurrences: occ, eligibleRecords: records,
                                               query: FindingsQuery(category: "person", includeRelated: false))
        #expect(noRelated.findings.isEmpty)
    }

    @Test func labelsAreDeterministicAndUseCategoryKeywords() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1), description: "teacher in a classroom"),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.12), description: "teacher shouting classroom"),
            Fixture.occ(3, record: "c", Fixture.vec(0, 1, 0.1), description: "station waiting happily"),
            Fixture.occ(4, record: "d", Fixture.vec(0, 1, 0.12), description: "station platform waiting"),
        ])
        let state = try Fixture.refresh(PatternState(), occ).state
        let a = PatternEngine.generatedLabels(state: state, occurrences: occ)
        let b = PatternEngine.generatedLabels(state: state, occurrences: occ)
        #expect(a == b)
        let g1 = try #require(state.group(of: 1)), g3 = try #require(state.group(of: 3))
        let teacher = try #require(a[g1.id])
        // The word both share names it (not the medoid's clause), the category's keywords follow.
        #expect(teacher.description == "teacher")
        #expect(teacher.keywords == ["classroom", "shouting"])
        let station = try #require(a[g3.id])
        #expect(station.keywords.contains("happily") || station.keywords.contains("platform"))
        #expect(!station.keywords.contains("teacher"))
    }
}

@Suite struct RebuildTests {
    @Test(arguments: [UInt64(61), 62, 63])
    func rebuildKeepsIDsAndCorrections(seed: UInt64) throws {
        let occ = Fixture.index(Fixture.synthetic(seed: seed))
        let first = try Fixture.refresh(PatternState(), occ)
        let g = try #require(first.state.sortedGroups.first { $0.members.count >= 3 })
        let dismissed = g.memberIDs[1]
        let r = try PatternEngine.correct(CorrectionRequest(kind: .dismiss(occurrence: dismissed, group: g.id), createdAt: "t"),
                                          id: 1, state: first.state, occurrences: occ, existing: [])
        let settled = try Fixture.refresh(r.outcome.state, occ, [r.correction]).state
        let rebuilt = try PatternEngine.rebuild(state: settled, occurrences: occ, constraints: r.constraints)
        #expect(Invariants.check(rebuilt.state, occ).isEmpty)
        // The groups come back under their old ids: each rebuilt group overlaps its namesake by
        // more than half, and almost all come back identical.
        let before = Fixture.memberSets(settled), after = Fixture.memberSets(rebuilt.state)
        var identical = 0
        for (id, members) in after where !members.isEmpty {
            guard let old = before[id] else { continue }
            #expect(members.intersection(old).count * 2 > members.count, "group \(id) renamed")
            if members == old {
                identical += 1
                #expect(rebuilt.state.groups[id]?.version == settled.groups[id]?.version)
            }
        }
        #expect(identical * 10 >= before.values.filter { !$0.isEmpty }.count * 8)
        #expect(rebuilt.state.groups[g.id]?.memberIDs.contains(dismissed) == false)
        #expect(rebuilt.state.nextGroupID >= settled.nextGroupID)
        // A refresh afterwards changes nothing.
        let again = try PatternEngine.refresh(state: rebuilt.state, occurrences: occ, constraints: r.constraints)
        #expect(again.state == rebuilt.state)
    }
}
