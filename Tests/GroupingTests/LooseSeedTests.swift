import Grouping
import Testing

/// Loose seeds: once nothing else changes, new occurrences still pending found a group from a
/// clique of at least `looseSeedRecords` records whose every pair reaches τ_looseSeed.
@Suite struct LooseSeedTests {
    /// Occurrence `id` of record "r<id>", at similarity 0.5 to every other built this way (a shared
    /// component and one of its own): below τ_seed (0.68), above τ_looseSeed (0.40).
    static func half(_ id: Int64) -> Occurrence {
        var xs: [Float] = [1, 0, 0, 0, 0, 0, 0, 0]
        xs[Int(id)] = 1
        return Fixture.occ(id, record: "r\(id)", Fixture.vec(xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7]))
    }

    static let noLooseSeeds = GroupingConfig(looseSeedRecords: 0)

    @Test func threeRecordsAtHalfSimilarityFoundAGroupThatAPairDoesNot() throws {
        let three = Fixture.index((1...3).map(Self.half))
        let off = try Fixture.refresh(PatternState(), three, config: Self.noLooseSeeds)
        #expect(off.state.groups.isEmpty && off.state.pending.count == 3)

        let out = try Fixture.refresh(PatternState(), three)
        #expect(Fixture.memberSets(out.state) == [1: [1, 2, 3]])
        #expect(out.state.pending.isEmpty && out.stats.groupsCreated == 1)
        #expect(out.state.groups[1]!.members.allSatisfy { if case .automatic = $0.source { true } else { false } })
        #expect(Invariants.check(out.state, three).isEmpty)
        let again = try Fixture.refresh(out.state, three)
        #expect(again.state == out.state && again.changedGroups.isEmpty)

        let pair = Fixture.index((1...2).map(Self.half))
        let two = try Fixture.refresh(PatternState(), pair)
        #expect(two.state.groups.isEmpty && two.state.pending.count == 2)
    }

    /// The same records arriving one by one: the third founds the group with the two that waited;
    /// the fourth joins it.
    @Test func aNewOccurrenceFoundsWithOlderOnesThatWaited() throws {
        var occ = Fixture.index((1...2).map(Self.half))
        var state = try Fixture.refresh(PatternState(), occ).state
        #expect(state.groups.isEmpty)
        occ[3] = Self.half(3)
        state = try Fixture.refresh(state, occ).state
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3]])
        occ[4] = Self.half(4)
        state = try Fixture.refresh(state, occ).state
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3, 4]])
        #expect(Invariants.check(state, occ).isEmpty)
    }

    /// Only occurrences new to the refresh found: three that waited under a configuration without
    /// loose seeds still wait after a refresh that brings nothing new under one with them.
    @Test func occurrencesThatAlreadyWaitedDoNotFound() throws {
        let occ = Fixture.index((1...3).map(Self.half))
        let waiting = try Fixture.refresh(PatternState(), occ, config: Self.noLooseSeeds).state
        let out = try Fixture.refresh(waiting, occ)
        #expect(out.state.groups.isEmpty && out.state.pending.count == 3)
    }

    /// More records than the three of the same clique needed (`looseSeedRecords` 4): three wait, a
    /// fourth founds with them.
    @Test func theRecordCountIsAsConfigured() throws {
        let four = GroupingConfig(looseSeedRecords: 4)
        var occ = Fixture.index((1...3).map(Self.half))
        var state = try Fixture.refresh(PatternState(), occ, config: four).state
        #expect(state.groups.isEmpty)
        occ[4] = Self.half(4)
        state = try Fixture.refresh(state, occ, config: four).state
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3, 4]])
    }

    /// Three occurrences at half similarity to each other, two of them of one record: two records,
    /// no loose seed.
    @Test func occurrencesOfOneRecordCountOnce() throws {
        let occ = Fixture.index([
            Self.half(1), Self.half(2),
            Fixture.occ(3, record: "r1", Fixture.vec(1, 0, 0, 1)),
        ])
        let out = try Fixture.refresh(PatternState(), occ)
        #expect(out.state.groups.isEmpty && out.state.pending.count == 3)
    }
}
