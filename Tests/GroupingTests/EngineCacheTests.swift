import Foundation
import Grouping
import Testing

/// A refresh leaves what it derived from the groups (per-scope group lists and centroid matrices)
/// for the next refresh of the state it returned. Using it must never change a decision, and a
/// state that is not exactly the returned one must not use it.
@Suite struct EngineCacheTests {
    /// The state as the store would give it back: same value, nothing derived kept.
    static func reloaded(_ s: PatternState) throws -> PatternState {
        try JSONDecoder().decode(PatternState.self, from: JSONEncoder().encode(s))
    }

    static func decisions(_ s: PatternState) -> [String] { KeptShortcutTests.decisions(s) }

    @Test(arguments: [UInt64(5), 6])
    func placingOneAtATimeDecidesAlikeWithAndWithoutTheCache(seed: UInt64) throws {
        var occ = Fixture.index(Fixture.synthetic(seed: seed, records: 80))
        var cached = try Fixture.refresh(PatternState(), occ).state
        var plain = try Self.reloaded(cached)
        let extra = Fixture.synthetic(seed: seed &+ 100, records: 30, firstID: 5000, firstRecord: 900)
        for (step, o) in extra.enumerated() {
            occ[o.id] = o
            // Now and then an occurrence goes (its record deleted) without the engine being told.
            var lastGone: Int64?
            if step % 5 == 4, let gone = occ.keys.sorted().dropFirst(step).first { occ[gone] = nil; lastGone = gone }
            // The cached path is told what changed (the occurrence that went too) every other step.
            var changed: Set<Int64> = [o.id]
            if step % 5 == 4, let gone = lastGone { changed.insert(gone) }
            let c = try PatternEngine.refresh(state: consume cached, occurrences: occ, changes: step % 2 == 0 ? OccurrenceChanges(changed) : nil,
                                              constraints: Constraints())
            let p = try PatternEngine.refresh(state: try Self.reloaded(plain), occurrences: occ, constraints: Constraints())
            #expect(Self.decisions(c.state) == Self.decisions(p.state), "step \(step)")
            #expect(c.changedGroups == p.changedGroups, "step \(step)")
            cached = c.state
            plain = p.state
        }
        #expect(cached.groups.values.contains { $0.members.count >= 3 }, "the run placed occurrences into groups")
    }

    @Test func anOlderCopyDoesNotUseTheCacheItsSuccessorUpdated() throws {
        var occ = Fixture.index(Fixture.synthetic(seed: 9, records: 80))
        let s0 = try Fixture.refresh(PatternState(), occ).state
        let b = Fixture.synthetic(seed: 11, records: 30, firstID: 8000, firstRecord: 800)
        // Along one branch, half of the records go: their groups shrink, some lose every member.
        var withA = occ
        for (id, o) in occ where Int(o.recordID.filter(\.isNumber))! % 2 == 0 { withA[id] = nil }
        // s0's successor takes the cache over and leaves it updated for its own result.
        let s1 = try PatternEngine.refresh(state: s0, occurrences: withA, constraints: Constraints()).state
        #expect(s1 != s0)
        // s0 is refreshed again along another branch: it must decide as a reloaded s0 does.
        for o in b { occ[o.id] = o }
        let branch = try PatternEngine.refresh(state: s0, occurrences: occ, constraints: Constraints())
        let reference = try PatternEngine.refresh(state: try Self.reloaded(s0), occurrences: occ, constraints: Constraints())
        #expect(Self.decisions(branch.state) == Self.decisions(reference.state))
    }

    @Test func editingTheReturnedStateDropsItsClaim() throws {
        var occ = Fixture.index(Fixture.synthetic(seed: 12, records: 80))
        var s = try Fixture.refresh(PatternState(), occ).state
        // An edit outside the engine (here: a group emptied by hand) must not meet stale centroids.
        let victim = s.sortedGroups.first { $0.members.count >= 2 }!.id
        s.groups[victim]!.members = []
        s.groups[victim]!.medoid = nil
        for o in Fixture.synthetic(seed: 13, records: 5, firstID: 9000, firstRecord: 950) { occ[o.id] = o }
        let edited = try PatternEngine.refresh(state: s, occurrences: occ, constraints: Constraints())
        let reference = try PatternEngine.refresh(state: try Self.reloaded(s), occurrences: occ, constraints: Constraints())
        #expect(Self.decisions(edited.state) == Self.decisions(reference.state))
    }
}
