import Foundation
import Grouping
import KindredTestSupport
import Testing

@Suite struct CorrectionTests {
    /// Three records about a teacher, all similar.
    func teachers() -> [Int64: Occurrence] {
        Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1, 0), description: "strict teacher"),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.12, 0.02), description: "teacher shouting"),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0.02, 0.12), description: "kind teacher"),
            Fixture.occ(4, record: "d", Fixture.vec(1, 0.0, 0.14), description: "kind teacher again"),
        ])
    }

    @Test func dismissalIsHonouredAcrossRefreshesAndNewRevisions() throws {
        var occ = teachers()
        let first = try Fixture.refresh(PatternState(), occ)
        let g = try #require(first.state.sortedGroups.first)
        #expect(Set(g.memberIDs) == [1, 2, 3, 4])
        let req = CorrectionRequest(kind: .dismiss(occurrence: 2, group: g.id), note: "different person", createdAt: "2025-04-01")
        let (c, _, applied) = try PatternEngine.correct(req, id: 1, state: first.state, occurrences: occ, existing: [])
        #expect(c.separated.contains(RecordPair("a", "b")))
        #expect(applied.state.pending[2] != nil)
        #expect(applied.state.groups[g.id]?.memberIDs.contains(2) == false)
        #expect(applied.changedGroups == [g.id])

        let again = try Fixture.refresh(applied.state, occ, [c])
        #expect(again.state.group(of: 2) == nil || again.state.group(of: 2)?.id != g.id)
        // A new revision of record b (new occurrence) does not bring the dismissed match back.
        occ[2] = nil
        occ[5] = Fixture.occ(5, record: "b", Fixture.vec(1, 0.11, 0.01))
        let edited = try Fixture.refresh(again.state, occ, [c])
        #expect(edited.state.groups[g.id]?.memberIDs.contains(5) == false)
        #expect(Invariants.check(edited.state, occ).isEmpty)
    }

    @Test func splitOfTwoTeachersKeepsThemApart() throws {
        var occ = teachers()
        let first = try Fixture.refresh(PatternState(), occ)
        let g = try #require(first.state.sortedGroups.first)
        let req = CorrectionRequest(kind: .split(group: g.id, moveOut: [3, 4]), note: "two unnamed teachers", createdAt: "2025-04-01")
        let (c, _, split) = try PatternEngine.correct(req, id: 1, state: first.state, occurrences: occ, existing: [])
        #expect(Set(c.separated) == [RecordPair("a", "c"), RecordPair("a", "d"), RecordPair("b", "c"), RecordPair("b", "d")])
        #expect(split.state.groups.count == 2)
        #expect(Set(split.state.groups[g.id]!.memberIDs) == [1, 2])
        let other = try #require(split.state.sortedGroups.last)
        #expect(Set(other.memberIDs) == [3, 4])
        #expect(other.members.allSatisfy { $0.source == .moved })

        // New teacher mentions of both kinds arrive; the two groups never mix.
        occ[5] = Fixture.occ(5, record: "e", Fixture.vec(1, 0.06, 0.06))
        occ[6] = Fixture.occ(6, record: "c", Fixture.vec(1, 0.1, 0.0))
        let later = try Fixture.refresh(split.state, occ, [c])
        for grp in later.state.groups.values {
            let records = Set(grp.memberIDs.map { occ[$0]!.recordID })
            #expect(!(records.contains("a") && records.contains("c")))
            #expect(!(records.contains("b") && records.contains("d")))
        }
        #expect(Invariants.check(later.state, occ).isEmpty)
        let again = try Fixture.refresh(later.state, occ, [c])
        #expect(again.state == later.state)
    }

    @Test func contradictionIsRefusedNamingBothRecords() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.12)),
            Fixture.occ(3, record: "c", Fixture.vec(0, 1, 0.1)), Fixture.occ(4, record: "d", Fixture.vec(0, 1, 0.12)),
        ])
        let s = try Fixture.refresh(PatternState(), occ).state
        let ids = s.sortedGroups.map(\.id)
        try #require(ids.count == 2)
        // Keep b apart from the first group's other record a ...
        let dismiss = try PatternEngine.correct(
            CorrectionRequest(kind: .dismiss(occurrence: 2, group: ids[0]), createdAt: "t1"),
            id: 1, state: s, occurrences: occ, existing: [])
        // ... then pin b into a group with a again: refused, naming a and b.
        let back = try PatternEngine.correct(
            CorrectionRequest(kind: .pin(occurrence: 2, group: ids[1]), createdAt: "t2"),
            id: 2, state: dismiss.outcome.state, occurrences: occ, existing: [dismiss.correction])
        let merge = CorrectionRequest(kind: .merge(into: ids[0], from: ids[1]), createdAt: "t3")
        let error = #expect(throws: GroupingError.self) {
            try PatternEngine.correct(merge, id: 3, state: back.outcome.state, occurrences: occ,
                                      existing: [dismiss.correction, back.correction])
        }
        guard case let .contradiction(ra, rb, _) = error else { Issue.record("expected a contradiction, got \(String(describing: error))"); return }
        #expect(Set([ra, rb]) == ["a", "b"])
        #expect(String(describing: error!).contains("a") && String(describing: error!).contains("b"))
    }

    @Test func mergeMovesMembersAndKeepsTheEmptiedGroupID() throws {
        let (occ, s) = try Fixture.twoPairs()
        let ids = s.sortedGroups.map(\.id)
        try #require(ids.count == 2)
        let m = try PatternEngine.correct(CorrectionRequest(kind: .merge(into: ids[0], from: ids[1]), createdAt: "t"),
                                          id: 1, state: s, occurrences: occ, existing: [])
        #expect(Set(m.outcome.state.groups[ids[0]]!.memberIDs) == [1, 2, 3, 4])
        #expect(m.outcome.state.groups[ids[1]]?.state == .dormant)
        #expect(m.outcome.state.groups[ids[1]]?.memberIDs == [])
        #expect(m.constraints.mustLink("a", "d"))
        // Refresh does not undo the merge (moved members are user-decided).
        let r = try Fixture.refresh(m.outcome.state, occ, [m.correction])
        #expect(r.state.groups == m.outcome.state.groups)
        #expect(r.state.pending == m.outcome.state.pending)
        #expect(r.changedGroups.isEmpty)
    }

    @Test func pinnedMemberIsNeverEvictedByTheStayCheck() throws {
        var (occ, g, pin) = try Fixture.farMemberPinned()
        #expect(pin.outcome.state.groups[g]?.membership(of: 3)?.source == .pinned)
        occ[4] = Fixture.occ(4, record: "d", Fixture.vec(1, 0.11))
        let r = try Fixture.refresh(pin.outcome.state, occ, [pin.correction])
        #expect(r.state.groups[g]?.memberIDs.contains(3) == true)
    }

    /// Random edits, deletions, re-additions, corrections and refreshes never violate a
    /// cannot-link (outside groups that already shared both records when it was made).
    @Test(arguments: [UInt64(41), 42, 43, 44, 45])
    func correctionsAreNeverViolated(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let all = Fixture.synthetic(seed: seed, records: 50)
        var occ = Fixture.index(all)
        var state = try Fixture.refresh(PatternState(), occ).state
        var corrections: [Correction] = []
        var shared = Set<String>()   // "gid|a|b" pairs allowed because they were shared when made
        var nextOcc: Int64 = 100_000
        for step in 0..<40 {
            let action = Int.random(in: 0..<5, using: &rng)
            let groups = state.sortedGroups.filter { $0.members.count >= 2 }
            switch action {
            case 0 where !groups.isEmpty:
                let g = groups[Int.random(in: 0..<groups.count, using: &rng)]
                let o = g.memberIDs[Int.random(in: 0..<g.memberIDs.count, using: &rng)]
                let req = CorrectionRequest(kind: .dismiss(occurrence: o, group: g.id), createdAt: "s\(step)")
                if let r = try? PatternEngine.correct(req, id: Int64(step + 1), state: state, occurrences: occ, existing: corrections) {
                    corrections.append(r.correction)
                    state = r.outcome.state
                }
            case 1 where !groups.isEmpty:
                let g = groups[Int.random(in: 0..<groups.count, using: &rng)]
                let out = Array(g.memberIDs.prefix(max(1, g.memberIDs.count / 2)))
                let req = CorrectionRequest(kind: .split(group: g.id, moveOut: out), createdAt: "s\(step)")
                if let r = try? PatternEngine.correct(req, id: Int64(step + 1), state: state, occurrences: occ, existing: corrections) {
                    corrections.append(r.correction)
                    state = r.outcome.state
                }
            case 2:
                // Delete a record, or re-add it at a new revision with new occurrence ids.
                let records = Set(occ.values.map(\.recordID)).sorted()
                let rec = records[Int.random(in: 0..<records.count, using: &rng)]
                let gone = occ.values.filter { $0.recordID == rec }
                for o in gone { occ[o.id] = nil }
                state = PatternEngine.removeOccurrences(Set(gone.map(\.id)), from: state, occurrences: occ).state
                if Bool.random(using: &rng) {
                    for o in gone {
                        let n = Occurrence(id: nextOcc, owner: o.owner, category: o.category, description: o.description, excerpt: o.excerpt,
                                           recordID: o.recordID, recordRevision: o.recordRevision + 1, recordDate: o.recordDate,
                                           tags: o.tags, vector: o.vector)
                        nextOcc += 1
                        occ[n.id] = n
                    }
                }
            default:
                break
            }
            let constraints = Constraints.derive(from: corrections, occurrences: occ)
            // Pairs shared at correction time stay allowed only while still shared.
            for c in corrections where c.id == Int64(step + 1) {
                for g in state.sortedGroups {
                    let rs = Set(g.memberIDs.compactMap { occ[$0]?.recordID })
                    for p in c.separated where rs.contains(p.a) && rs.contains(p.b) { shared.insert("\(g.id)|\(p.a)|\(p.b)") }
                }
            }
            state = try PatternEngine.refresh(state: state, occurrences: occ, constraints: constraints).state
            #expect(Invariants.check(state, occ).isEmpty)
            var stillShared = Set<String>()
            for g in state.sortedGroups {
                let rs = Set(g.memberIDs.compactMap { occ[$0]?.recordID })
                for p in constraints.cannotLink where rs.contains(p.a) && rs.contains(p.b) {
                    let key = "\(g.id)|\(p.a)|\(p.b)"
                    #expect(shared.contains(key), "group \(g.id) joined cannot-linked records \(p.a) and \(p.b) at step \(step)")
                    stillShared.insert(key)
                }
            }
            shared = stillShared
            let again = try PatternEngine.refresh(state: state, occurrences: occ, constraints: constraints).state
            #expect(again == state)
        }
        #expect(!corrections.isEmpty)
    }
}

/// `exclude`: an entry that belongs to no pattern leaves its group and joins none, through
/// refreshes and a rebuild, until the correction is undone; a dismissed one needs clearer evidence.
@Suite struct ExcludeTests {
    static let occurrences = Fixture.index([
        Fixture.occ(1, record: "a", Fixture.vec(1, 0.05)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.10)),
        Fixture.occ(3, record: "c", Fixture.vec(1, 0.15)), Fixture.occ(4, record: "d", Fixture.vec(1, 0.08)),
    ])

    @Test func anExcludedEntryJoinsNoGroupUntilUndone() throws {
        let occ = Self.occurrences
        let first = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints())
        let g = try #require(first.state.groups.values.first { $0.memberIDs.contains(4) })
        let (c, constraints, out) = try PatternEngine.correct(
            CorrectionRequest(kind: .exclude(occurrence: 4, group: g.id), note: "not a pattern", createdAt: "t"),
            id: 1, state: first.state, occurrences: occ, existing: [])
        #expect(c.records == ["d"] && constraints.isExcluded("d"))
        #expect(out.state.pending[4] != nil && !out.state.groups[g.id]!.memberIDs.contains(4))
        let again = try PatternEngine.refresh(state: out.state, occurrences: occ, constraints: constraints)
        #expect(again.state.pending[4] != nil)
        let rebuilt = try PatternEngine.rebuild(state: again.state, occurrences: occ, constraints: constraints)
        #expect(rebuilt.state.pending[4] != nil && rebuilt.state.groups.values.allSatisfy { !$0.memberIDs.contains(4) })
        // Undone, it is placed again.
        let undone = PatternEngine.undo(c, state: again.state, occurrences: occ, constraints: Constraints())
        let placed = try PatternEngine.refresh(state: undone.state, occurrences: occ, constraints: Constraints())
        #expect(placed.state.pending[4] == nil)
        // Stored and read back, the correction keeps its record; one stored before it had one reads as empty.
        let decoded = try JSONDecoder().decode(Correction.self, from: JSONEncoder().encode(c))
        #expect(decoded == c)
        let old = #"{"id":2,"kind":{"dismiss":{"occurrence":4,"group":1}},"createdAt":"t","separated":[{"a":"a","b":"d"},{"a":"b","b":"d"}],"joined":[],"occurrences":[4]}"#
        let legacy = try JSONDecoder().decode(Correction.self, from: Data(old.utf8))
        #expect(legacy.records.isEmpty && Constraints.derive(from: [legacy], occurrences: occ).dismissed == ["d"])
    }
}
