import Foundation
import Grouping
import Testing

/// A refresh leaves what it derived from the groups (per-scope group lists and centroid matrices)
/// in the caller's `EngineCache` for the next refresh of the state it returned. Using it must never
/// change a decision, and a state another call changed must not use it.
@Suite struct EngineCacheTests {
    /// The state as the store would give it back: same value, nothing derived kept.
    static func reloaded(_ s: PatternState) throws -> PatternState {
        try JSONDecoder().decode(PatternState.self, from: JSONEncoder().encode(s))
    }

    static func decisions(_ s: PatternState) -> [String] { KeptShortcutTests.decisions(s) }

    @Test(arguments: [UInt64(5), 6])
    func placingOneAtATimeDecidesAlikeWithAndWithoutTheCache(seed: UInt64) throws {
        var occ = Fixture.index(Fixture.synthetic(seed: seed, records: 80))
        var cache = EngineCache()
        var cached = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), cache: &cache).state
        #expect(!cache.isEmpty)
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
                                              constraints: Constraints(), cache: &cache)
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
        var cache = EngineCache()
        let s0 = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), cache: &cache).state
        let b = Fixture.synthetic(seed: 11, records: 30, firstID: 8000, firstRecord: 800)
        // Along one branch, half of the records go: their groups shrink, some lose every member.
        var withA = occ
        for (id, o) in occ where Int(o.recordID.filter(\.isNumber))! % 2 == 0 { withA[id] = nil }
        // s0's successor takes the cache over and leaves it filled for its own result.
        let s1 = try PatternEngine.refresh(state: s0, occurrences: withA, constraints: Constraints(), cache: &cache).state
        #expect(s1 != s0)
        // s0 is refreshed again along another branch, with s1's cache: it must decide as a reloaded s0 does.
        for o in b { occ[o.id] = o }
        let branch = try PatternEngine.refresh(state: s0, occurrences: occ, constraints: Constraints(), cache: &cache)
        let reference = try PatternEngine.refresh(state: try Self.reloaded(s0), occurrences: occ, constraints: Constraints())
        #expect(Self.decisions(branch.state) == Self.decisions(reference.state))
    }

    /// A correction changes the state outside a refresh; the cache the refresh before it left is
    /// not used for the corrected state.
    @Test func aCorrectedStateDoesNotUseTheCacheOfTheStateBefore() throws {
        var occ = Fixture.index(Fixture.synthetic(seed: 12, records: 80))
        var cache = EngineCache()
        let s = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), cache: &cache).state
        let g = try #require(s.sortedGroups.first { $0.state == .active && $0.members.count >= 3 })
        let (_, constraints, corrected) = try PatternEngine.correct(
            CorrectionRequest(kind: .split(group: g.id, moveOut: [g.members[0].occurrenceID, g.members[1].occurrenceID]), createdAt: "2026-01-01"),
            id: 1, state: s, occurrences: occ, existing: [])
        for o in Fixture.synthetic(seed: 13, records: 5, firstID: 9000, firstRecord: 950) { occ[o.id] = o }
        let withCache = try PatternEngine.refresh(state: corrected.state, occurrences: occ, constraints: constraints, cache: &cache)
        let reference = try PatternEngine.refresh(state: try Self.reloaded(corrected.state), occurrences: occ, constraints: constraints)
        #expect(Self.decisions(withCache.state) == Self.decisions(reference.state))
        #expect(withCache.changedGroups == reference.changedGroups)
    }

    /// An edit by hand that leaves the state's counters alone is the caller's to tell: after
    /// `reset()` the refresh decides as over the reloaded state.
    @Test func aResetCacheAfterAnEditByHandDecidesAsTheReloadedState() throws {
        var occ = Fixture.index(Fixture.synthetic(seed: 12, records: 80))
        var cache = EngineCache()
        var s = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), cache: &cache).state
        // A group emptied by hand must not meet stale centroids.
        let victim = s.sortedGroups.first { $0.members.count >= 2 }!.id
        s.groups[victim]!.members = []
        s.groups[victim]!.medoid = nil
        cache.reset()
        #expect(cache.isEmpty)
        for o in Fixture.synthetic(seed: 13, records: 5, firstID: 9000, firstRecord: 950) { occ[o.id] = o }
        let edited = try PatternEngine.refresh(state: s, occurrences: occ, constraints: Constraints(), cache: &cache)
        let reference = try PatternEngine.refresh(state: try Self.reloaded(s), occurrences: occ, constraints: Constraints())
        #expect(Self.decisions(edited.state) == Self.decisions(reference.state))
    }
}
