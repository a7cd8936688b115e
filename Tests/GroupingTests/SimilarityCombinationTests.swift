import Foundation
import Grouping
import Testing

/// Above `linkScopeLimit` (0 here), two groups of one category that support each other both ways
/// are combined by similarity: the older id survives, the younger records where its members went;
/// cannot-links and user-shaped groups hold.
@Suite struct SimilarityCombinationTests {
    /// Two pairs seeded apart (τ_seed high) that describe one situation.
    static func twoClosePairs() -> [Int64: Occurrence] { CombinationTests.twoClosePairs() }

    static let seedApart = bySimilarity(GroupingConfig(tauSeed: 0.99, tauCombine: 2))
    static let combining = bySimilarity(GroupingConfig(tauSeed: 0.99, tauCombine: 0.9))

    @Test func groupsThatSupportEachOtherAreCombinedIntoTheOlder() throws {
        let out = try CombinationTests.combinedIntoTheOlder(apart: Self.seedApart, combining: Self.combining)
        #expect(out.state.groups[1]!.members.allSatisfy { $0.source.staysChecked })
    }

    /// Three pairs along an arc, A (0°), B (30°) and C (50°): A–B and B–C both qualify at
    /// τ_rep = τ_sup = τ_combine = 0.85, B–C is the closer pair. B is combined with C, its best
    /// partner, not taken by A because A's id is lower; (B ∪ C)'s examples then reject A's, and A
    /// stays apart.
    @Test func theClosestPairOfANeighbourhoodCombinesFirst() throws {
        let occ = try CombinationTests.threePairsOnAnArc(apart: Self.seedApart)
        let out = try Fixture.refresh(PatternState(), occ, config: bySimilarity(GroupingConfig(tauRep: 0.85, tauSup: 0.85, tauSeed: 0.99, tauCombine: 0.85)))
        #expect(Fixture.memberSets(out.state) == [1: [1, 2], 2: [3, 4, 5, 6], 3: []])
        #expect(out.state.groups[3]!.mergedInto == 2 && out.stats.groupsCombined == 1)
        #expect(Invariants.check(out.state, occ).isEmpty)
    }

    /// Two seeded pairs that would combine as seeds, and an occurrence that only one of them
    /// accepts: groups are compared once assignment is done, so the grown group no longer
    /// combines with the other (mean pair similarity 0.46 < 0.6), and the occurrence is placed.
    @Test func groupsAreCombinedOnlyAfterAssignmentHasPlacedWhatItCan() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0, 0.15)), Fixture.occ(2, record: "b", Fixture.vec(1, 0, -0.15)),
            Fixture.occ(3, record: "c", Fixture.vec(0.7, 0.714, 0, 0.15)), Fixture.occ(4, record: "d", Fixture.vec(0.7, 0.714, 0, -0.15)),
            Fixture.occ(5, record: "e", Fixture.vec(0, 0.84, 0, 0, 0.54)),
        ])
        let cfg = bySimilarity(GroupingConfig(tauSeed: 0.9, tauCombine: 0.6))
        // As seeds alone, the two pairs would combine.
        let seeds = try Fixture.refresh(PatternState(), occ.filter { $0.key <= 4 }, config: cfg)
        #expect(Fixture.memberSets(seeds.state) == [1: [1, 2, 3, 4], 2: []])
        let out = try Fixture.refresh(PatternState(), occ, config: cfg)
        #expect(Fixture.memberSets(out.state) == [1: [1, 2], 2: [3, 4, 5]])
        #expect(out.stats.groupsCombined == 0 && out.state.pending.isEmpty)
        #expect(Invariants.check(out.state, occ).isEmpty)
    }

    @Test func groupsBelowTheCombineThresholdStayApart() throws {
        // One example per group: the pairs' members are not all examples, so the mean pair
        // similarity (0.98) must reach τ_combine too.
        let out = try Fixture.refresh(PatternState(), Self.twoClosePairs(), config: bySimilarity(GroupingConfig(tauSeed: 0.99, tauCombine: 0.99, exemplars: 1)))
        #expect(Fixture.memberSets(out.state) == [1: [1, 2], 2: [3, 4]])
        #expect(out.stats.groupsCombined == 0)
    }

    /// Groups whose members are all their examples (here two pairs, three examples each at most):
    /// support tried every member as a join would, and decides alone, whatever τ_combine.
    @Test func groupsOfExamplesOnlyCombineOnSupportAlone() throws {
        let out = try Fixture.refresh(PatternState(), Self.twoClosePairs(), config: bySimilarity(GroupingConfig(tauSeed: 0.99, tauCombine: 0.99)))
        #expect(Fixture.memberSets(out.state) == [1: [1, 2, 3, 4], 2: []])
        #expect(out.stats.groupsCombined == 1)
        // Examples that reject each other keep them apart.
        let strict = try Fixture.refresh(PatternState(), Self.twoClosePairs(), config: bySimilarity(GroupingConfig(tauRep: 0.99, tauSup: 0.99, tauSeed: 0.99, tauStay: 0.3, tauCombine: 0.5)))
        #expect(Fixture.memberSets(strict.state) == [1: [1, 2], 2: [3, 4]])
    }

    @Test func aCannotLinkAcrossKeepsThemApart() throws {
        let occ = Self.twoClosePairs()
        let apart = try Fixture.refresh(PatternState(), occ, config: Self.seedApart).state
        // a and c were kept apart by a user (a split of an earlier group holding both).
        let c = Correction(id: 1, kind: .dismiss(occurrence: 3, group: 1), createdAt: "t", separated: [RecordPair("a", "c")])
        let out = try PatternEngine.refresh(state: apart, occurrences: occ, constraints: Constraints.derive(from: [c], occurrences: occ),
                                            config: Self.combining)
        // Nothing to do for the engine in a settled state: make it look again by adding an occurrence.
        var more = occ
        more[5] = Fixture.occ(5, record: "e", Fixture.vec(1, 0.22, 0.01))
        let later = try PatternEngine.refresh(state: out.state, occurrences: more, constraints: Constraints.derive(from: [c], occurrences: more),
                                              config: Self.combining).state
        for g in later.sortedGroups {
            let records = Set(g.memberIDs.map { more[$0]!.recordID })
            #expect(!(records.contains("a") && records.contains("c")), "group \(g.id)")
        }
        #expect(later.sortedGroups.allSatisfy { $0.mergedInto == nil })
    }

    @Test func aYoungerGroupHoldingAPinIsNotAbsorbed() throws {
        try CombinationTests.pinnedYoungerIsNotAbsorbed(apart: Self.seedApart, combining: Self.combining)
    }

    @Test func twoFarGroupsAreNotCombinedThroughAMiddleOne() throws {
        // Three pairs on an arc: neighbours close, ends far apart (cos ≈ 0.5).
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.02)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0.58)), Fixture.occ(4, record: "d", Fixture.vec(1, 0.6)),
            Fixture.occ(5, record: "e", Fixture.vec(1, 1.7)), Fixture.occ(6, record: "f", Fixture.vec(1, 1.75)),
        ])
        let out = try Fixture.refresh(PatternState(), occ, config: bySimilarity(GroupingConfig(tauRep: 0.84, tauSup: 0.84, tauSeed: 0.99, tauCombine: 0.84)))
        for g in out.state.sortedGroups {
            #expect(!(g.memberIDs.contains(1) && g.memberIDs.contains(5)), "group \(g.id) chains the ends")
        }
        #expect(Invariants.check(out.state, occ).isEmpty)
    }
}

/// `config` with every category above `linkScopeLimit`, so that groups combine by similarity.
private func bySimilarity(_ config: GroupingConfig) -> GroupingConfig {
    var c = config
    c.linkScopeLimit = 0
    return c
}
