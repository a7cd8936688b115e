import Grouping
import Testing

/// Undoing a correction moves back what it moved, and it stops constraining later refreshes.
@Suite struct UndoTests {
    /// Two unnamed teachers (a, b vs c, d) close enough to share a group before any correction.
    func teachers() -> [Int64: Occurrence] {
        Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.05, 0)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.07, 0)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0, 0.3)), Fixture.occ(4, record: "d", Fixture.vec(1, 0, 0.32)),
        ])
    }

    @Test func undoingASplitPutsTheMembersBackAndTheyStay() throws {
        let occ = teachers()
        let first = try Fixture.refresh(PatternState(), occ).state
        let g = try #require(first.sortedGroups.first)
        try #require(Set(g.memberIDs) == [1, 2, 3, 4])
        let split = try PatternEngine.correct(CorrectionRequest(kind: .split(group: g.id, moveOut: [3, 4]), createdAt: "t"),
                                              id: 1, state: first, occurrences: occ, existing: [])
        let other = try #require(split.outcome.state.sortedGroups.last?.id)
        let undone = PatternEngine.undo(split.correction, state: split.outcome.state, occurrences: occ, constraints: Constraints())
        #expect(Set(undone.state.groups[g.id]!.memberIDs) == [1, 2, 3, 4])
        #expect(undone.state.groups[g.id]!.members.allSatisfy { !$0.source.isUserDecided })
        #expect(undone.state.groups[other]!.memberIDs.isEmpty)
        #expect(undone.state.groups[other]!.state == .dormant)
        #expect(Set(undone.changedGroups) == [g.id, other])
        #expect(Invariants.check(undone.state, occ).isEmpty)
        // Without the correction in force, a refresh keeps them together.
        let r = try Fixture.refresh(undone.state, occ)
        #expect(Set(r.state.groups[g.id]!.memberIDs) == [1, 2, 3, 4])
    }

    @Test func undoingAMergeRestoresBothGroups() throws {
        let (occ, s) = try Fixture.twoPairs()
        let ids = s.sortedGroups.map(\.id)
        try #require(ids.count == 2)
        let before = Fixture.memberSets(s)
        let m = try PatternEngine.correct(CorrectionRequest(kind: .merge(into: ids[0], from: ids[1]), createdAt: "t"),
                                          id: 1, state: s, occurrences: occ, existing: [])
        let undone = PatternEngine.undo(m.correction, state: m.outcome.state, occurrences: occ, constraints: Constraints())
        #expect(Fixture.memberSets(undone.state) == before)
        #expect(undone.state.sortedGroups.allSatisfy { $0.state == .active })
        #expect(undone.state.sortedGroups.allSatisfy { $0.members.allSatisfy { !$0.source.isUserDecided } })
        let r = try Fixture.refresh(undone.state, occ)
        #expect(Fixture.memberSets(r.state) == before)
    }

    @Test func undoingAPinLetsTheStayCheckDecide() throws {
        let (occ, g, pin) = try Fixture.farMemberPinned()
        try #require(pin.outcome.state.groups[g]?.membership(of: 3)?.source == .pinned)
        let undone = PatternEngine.undo(pin.correction, state: pin.outcome.state, occurrences: occ, constraints: Constraints())
        // Occurrence 3 is far from the others: without its pin it leaves for pending.
        #expect(undone.state.groups[g]?.membership(of: 3) == nil)
        #expect(undone.state.pending[3] != nil)
        #expect(Set(undone.state.groups[g]!.memberIDs) == [1, 2])
    }

    @Test func undoingADismissalLetsTheNextRefreshPlaceItAgain() throws {
        let occ = teachers()
        let s = try Fixture.refresh(PatternState(), occ).state
        let g = try #require(s.sortedGroups.first)
        let d = try PatternEngine.correct(CorrectionRequest(kind: .dismiss(occurrence: 4, group: g.id), createdAt: "t"),
                                          id: 1, state: s, occurrences: occ, existing: [])
        let kept = try Fixture.refresh(d.outcome.state, occ, [d.correction])
        #expect(kept.state.groups[g.id]?.membership(of: 4) == nil)
        let undone = PatternEngine.undo(d.correction, state: kept.state, occurrences: occ, constraints: Constraints())
        #expect(undone.state.pending[4] == .fresh)
        #expect(undone.state.settledAt == nil)
        let r = try Fixture.refresh(undone.state, occ)
        #expect(r.state.groups[g.id]?.membership(of: 4) != nil)
    }

    @Test func aMemberThatAnotherCorrectionKeepsApartGoesToPendingInstead() throws {
        let occ = teachers()
        let first = try Fixture.refresh(PatternState(), occ).state
        let g = try #require(first.sortedGroups.first)
        let split = try PatternEngine.correct(CorrectionRequest(kind: .split(group: g.id, moveOut: [3, 4]), createdAt: "t1"),
                                              id: 1, state: first, occurrences: occ, existing: [])
        // A later dismissal keeps d apart from a and b on its own.
        let keepApart = Correction(id: 2, kind: .dismiss(occurrence: 4, group: g.id), createdAt: "t2",
                                   separated: [RecordPair("a", "d"), RecordPair("b", "d")], occurrences: [4])
        let remaining = Constraints.derive(from: [keepApart], occurrences: occ)
        let undone = PatternEngine.undo(split.correction, state: split.outcome.state, occurrences: occ, constraints: remaining)
        #expect(Set(undone.state.groups[g.id]!.memberIDs) == [1, 2, 3])
        #expect(undone.state.pending[4] != nil)
        #expect(Invariants.check(undone.state, occ).isEmpty)
    }
}
