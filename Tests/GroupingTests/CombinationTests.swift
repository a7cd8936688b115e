import Foundation
import Grouping
import Testing

/// Two groups of one category whose members are each other's nearest neighbours are combined: the
/// older id survives, the younger records where its members went, the members keep their place
/// whatever the combined medoid; cannot-links and user-shaped groups hold.
@Suite struct CombinationTests {
    /// Two pairs seeded apart (τ_seed high) that describe one situation: each member's nearest
    /// other than its twin is in the other pair.
    static func twoClosePairs() -> [Int64: Occurrence] {
        Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.2, 0)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.25, 0)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0, 0.2)), Fixture.occ(4, record: "d", Fixture.vec(1, 0, 0.25)),
        ])
    }

    static let seedApart = GroupingConfig(tauSeed: 0.99, combineLink: 2)
    /// Two neighbours per member; γ = 1.5 (four occurrences: at the default γ nothing this small combines).
    static let combining = GroupingConfig(tauSeed: 0.99, combineLink: 0.5, linkNeighbours: 2, combineResolution: 1.5)

    @Test func groupsWhoseMembersAreEachOthersNeighboursAreCombinedIntoTheOlder() throws {
        let out = try Self.combinedIntoTheOlder(apart: Self.seedApart, combining: Self.combining)
        #expect(out.state.groups[1]!.members.allSatisfy { $0.source == .combined })
    }

    /// The two close pairs, seeded apart under `apart`, are combined under `combining` into the
    /// older group: the younger stays empty and dormant naming it; a second refresh changes
    /// nothing, and the emptied id is never used again.
    static func combinedIntoTheOlder(apart: GroupingConfig, combining: GroupingConfig) throws -> RefreshOutcome {
        let occ = twoClosePairs()
        #expect(Fixture.memberSets(try Fixture.refresh(PatternState(), occ, config: apart).state) == [1: [1, 2], 2: [3, 4]])
        let out = try Fixture.refresh(PatternState(), occ, config: combining)
        #expect(Fixture.memberSets(out.state) == [1: [1, 2, 3, 4], 2: []])
        #expect(out.state.groups[2]!.mergedInto == 1)
        #expect(out.state.groups[2]!.state == .dormant && out.state.groups[1]!.state == .active)
        #expect(out.stats.groupsCombined == 1)
        #expect(Invariants.check(out.state, occ).isEmpty)
        let again = try Fixture.refresh(out.state, occ, config: combining)
        #expect(again.state == out.state && again.changedGroups.isEmpty)
        var more = occ
        more[5] = Fixture.occ(5, record: "e", Fixture.vec(0, 1))
        more[6] = Fixture.occ(6, record: "f", Fixture.vec(0, 1, 0.01))
        let later = try Fixture.refresh(out.state, more, config: combining).state
        #expect(later.groups[3].map { Set($0.memberIDs) } == [5, 6])
        #expect(later.groups[2]!.memberIDs.isEmpty)
        return out
    }

    /// Each member's one nearest neighbour is its twin: no link crosses, the pairs stay apart.
    @Test func groupsWhoseMembersAreTheirOwnNearestStayApart() throws {
        var cfg = Self.combining
        cfg.linkNeighbours = 1
        let out = try Fixture.refresh(PatternState(), Self.twoClosePairs(), config: cfg)
        #expect(Fixture.memberSets(out.state) == [1: [1, 2], 2: [3, 4]])
        #expect(out.stats.groupsCombined == 0)
    }

    /// The younger pair's rows, two neighbours each, have one neighbour each in the older pair:
    /// a share of 2 / 4, against |L| / 2N = 2 / 8 for links drawn at random among four
    /// occurrences. So the pairs combine while γ < 2 (the share must exceed γ times that), not at
    /// γ = 2 or the default 16. (A later pair far from both, whose second neighbours can only be in
    /// the first group, is not combined with it at γ = 1.5 either: see the first test.)
    @Test func inASmallCategoryNeighboursAloneDoNotCombine() throws {
        for (gamma, combines) in [(Float(1.5), true), (2, false), (16, false)] {
            var cfg = Self.combining
            cfg.combineResolution = gamma
            let out = try Fixture.refresh(PatternState(), Self.twoClosePairs(), config: cfg)
            #expect((out.stats.groupsCombined == 1) == combines, "γ = \(gamma)")
        }
    }

    /// The combined group's medoid is far from some members (τ_stay 0.97 here, which each pair
    /// meets alone): they stay, now and after a member is removed and the medoid moves.
    @Test func combinedMembersKeepTheirPlaceWhenTheMedoidMoves() throws {
        var cfg = Self.combining
        cfg.tauStay = 0.97
        let occ = Self.twoClosePairs()
        let out = try Fixture.refresh(PatternState(), occ, config: cfg)
        #expect(Fixture.memberSets(out.state) == [1: [1, 2, 3, 4], 2: []])
        let medoid = occ[out.state.groups[1]!.medoid!]!.vector
        let far = [Int64(1), 2, 3, 4].filter { GroupingConfig().quantise(zip(occ[$0]!.vector, medoid).map(*).reduce(0, +)) < 9700 }
        #expect(!far.isEmpty, "the fixture needs a member below τ_stay of the combined medoid")
        let removed = PatternEngine.removeOccurrences([2], from: out.state, occurrences: occ, config: cfg)
        #expect(Fixture.memberSets(removed.state)[1] == [1, 3, 4])
        #expect(removed.stats.evicted == 0)
        // An automatic member would have left: the same group before combining, with τ_stay 0.97.
        var reference = ReferenceEngine(config: cfg)
        reference.refresh(occ, Constraints())
        #expect(ReferenceEngine.describe(out.state) == reference.description)
    }

    /// Three pairs along an arc, A (0°), B (30°) and C (50°), two neighbours each. Each pair is
    /// judged from the smaller group, here the younger: B's and C's rows have their second
    /// neighbours in each other (share 0.5, at γ = 2 above random), so B and C combine; A–B is
    /// judged from B, whose neighbours are in C, and stays apart. Then A is the smaller group: its
    /// neighbours are in B ∪ C (share 0.5), but no more than twice what random links would give a
    /// group of four among six (4 / 12), and A stays apart.
    @Test func theSmallerGroupsNeighboursDecide() throws {
        let occ = try CombinationTests.threePairsOnAnArc(apart: Self.seedApart)
        let cfg = GroupingConfig(tauSeed: 0.99, combineLink: 0.4, linkNeighbours: 2, combineResolution: 2)
        let out = try Fixture.refresh(PatternState(), occ, config: cfg)
        #expect(Fixture.memberSets(out.state) == [1: [1, 2], 2: [3, 4, 5, 6], 3: []])
        #expect(out.state.groups[3]!.mergedInto == 2 && out.stats.groupsCombined == 1)
        #expect(Invariants.check(out.state, occ).isEmpty)
    }

    /// Pairs A (0°), B (30°) and C (50°) on an arc, each two records ±0.05 off it; seeded apart
    /// under `apart` into groups 1, 2 and 3.
    static func threePairsOnAnArc(apart: GroupingConfig) throws -> [Int64: Occurrence] {
        func pair(_ id: Int64, _ degrees: Float) -> [Occurrence] {
            let a = degrees * .pi / 180
            return [Fixture.occ(id, record: "r\(id)", Fixture.vec(cos(a), sin(a), 0.05)),
                    Fixture.occ(id + 1, record: "r\(id + 1)", Fixture.vec(cos(a), sin(a), -0.05))]
        }
        let occ = Fixture.index(pair(1, 0) + pair(3, 30) + pair(5, 50))
        #expect(Fixture.memberSets(try Fixture.refresh(PatternState(), occ, config: apart).state) == [1: [1, 2], 2: [3, 4], 3: [5, 6]])
        return occ
    }

    @Test func aCannotLinkAcrossKeepsThemApart() throws {
        let occ = Self.twoClosePairs()
        let apart = try Fixture.refresh(PatternState(), occ, config: Self.seedApart).state
        // γ = 1: with e (joining the first pair) the pairs' links are 2, against 2 × 3 × 2 / 10 at random.
        var cfg = Self.combining
        cfg.combineResolution = 1
        // a and c were kept apart by a user (a split of an earlier group holding both).
        let c = Correction(id: 1, kind: .dismiss(occurrence: 3, group: 1), createdAt: "t", separated: [RecordPair("a", "c")])
        // A new occurrence makes the engine look again.
        var more = occ
        more[5] = Fixture.occ(5, record: "e", Fixture.vec(1, 0.22, 0.01))
        let later = try PatternEngine.refresh(state: apart, occurrences: more, constraints: Constraints.derive(from: [c], occurrences: more),
                                              config: cfg).state
        for g in later.sortedGroups {
            let records = Set(g.memberIDs.map { more[$0]!.recordID })
            #expect(!(records.contains("a") && records.contains("c")), "group \(g.id)")
        }
        #expect(later.sortedGroups.allSatisfy { $0.mergedInto == nil })
        // Without the cannot-link the same refresh combines them.
        let free = try Fixture.refresh(apart, more, config: cfg).state
        #expect(Fixture.memberSets(free) == [1: [1, 2, 3, 4, 5], 2: []])
    }

    @Test func aYoungerGroupHoldingAPinIsNotAbsorbed() throws {
        try Self.pinnedYoungerIsNotAbsorbed(apart: Self.seedApart, combining: Self.combining)
    }

    /// The younger of the two close pairs, seeded apart under `apart`, holds a pin: under
    /// `combining` it keeps its members when a new occurrence makes the engine look again.
    static func pinnedYoungerIsNotAbsorbed(apart seedApart: GroupingConfig, combining: GroupingConfig) throws {
        let occ = twoClosePairs()
        let apart = try Fixture.refresh(PatternState(), occ, config: seedApart).state
        let pin = try PatternEngine.correct(CorrectionRequest(kind: .pin(occurrence: 3, group: 2), createdAt: "t"),
                                            id: 1, state: apart, occurrences: occ, existing: [], config: combining)
        var more = occ
        more[5] = Fixture.occ(5, record: "e", Fixture.vec(1, 0, 0.22))
        let later = try PatternEngine.refresh(state: pin.outcome.state, occurrences: more, constraints: pin.constraints,
                                              config: combining).state
        #expect(later.groups[2]!.memberIDs.contains(3))
        #expect(later.groups[2]!.mergedInto == nil)
    }

    @Test func combinedMembershipsRoundTripThroughJSON() throws {
        let out = try Fixture.refresh(PatternState(), Self.twoClosePairs(), config: Self.combining).state
        let decoded = try JSONDecoder().decode(PatternState.self, from: JSONEncoder().encode(out))
        #expect(decoded == out)
        #expect(String(decoding: try JSONEncoder().encode(out.groups[1]!.members[0]), as: UTF8.self) == "[1,1,\"combined\"]")
    }
}
