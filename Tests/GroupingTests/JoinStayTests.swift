import Grouping
import Testing

/// A join never pushes a member out: an occurrence that would move a group's medoid so far that
/// a member falls below τ_stay of the new one stays pending, and the group keeps its members.
@Suite struct JoinStayTests {
    /// A group grown one refresh at a time from the seed pair (1, 2): 3, 4 and 5 join in turn with
    /// 1 as the medoid. 6 passes the join rule against that medoid and those examples, but with it
    /// added the medoid would be 2, where 3 is at 0.777 (below τ_stay = 0.79).
    static let config = GroupingConfig(tauRep: 0.8, tauSup: 0.8, tauSeed: 0.995, tauStay: 0.79, combineLink: 2)
    static let points: [(Float, Float, Float)] = [(1, 0, 0), (1, 0.1, 0), (1, -0.6, -0.3), (1, 0.4, -0.1), (1, 0.1, 0.1), (1, 0.4, 0)]

    static func occurrences(_ n: Int) -> [Int64: Occurrence] {
        Fixture.index(points.prefix(n).enumerated().map { i, p in Fixture.occ(Int64(i + 1), record: "r\(i + 1)", Fixture.vec(p.0, p.1, p.2)) })
    }

    @Test func aJoinThatWouldEvictAMemberIsNotMade() throws {
        var state = PatternState()
        var reference = ReferenceEngine(config: Self.config)
        for n in 2...5 {
            state = try Fixture.refresh(state, Self.occurrences(n), config: Self.config).state
            reference.refresh(Self.occurrences(n), Constraints())
            #expect(ReferenceEngine.describe(state) == reference.description, "after \(n) occurrences")
        }
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3, 4, 5]])
        #expect(state.groups[1]!.medoid == 1)
        let out = try Fixture.refresh(state, Self.occurrences(6), config: Self.config)
        // 6 stays pending; 3 is still a member and the medoid has not moved.
        #expect(Fixture.memberSets(out.state) == [1: [1, 2, 3, 4, 5]])
        #expect(out.state.pending[6] != nil)
        #expect(out.state.groups[1]!.medoid == 1)
        #expect(out.stats.evicted == 0)
        reference.refresh(Self.occurrences(6), Constraints())
        #expect(ReferenceEngine.describe(out.state) == reference.description)
        #expect(Invariants.check(out.state, Self.occurrences(6)).isEmpty)
        // Idempotent: a second refresh changes nothing.
        let again = try Fixture.refresh(out.state, Self.occurrences(6), config: Self.config)
        #expect(again.state == out.state && again.changedGroups.isEmpty)
    }

    /// The same history at a lower stay threshold: the medoid moves to 2 and nobody falls below
    /// τ_stay, so 6 joins.
    @Test func aJoinThatKeepsEveryMemberIsMade() throws {
        let loose = GroupingConfig(tauRep: 0.8, tauSup: 0.8, tauSeed: 0.995, tauStay: 0.7, combineLink: 2)
        var state = PatternState()
        for n in 2...6 {
            state = try Fixture.refresh(state, Self.occurrences(n), config: loose).state
        }
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3, 4, 5, 6]])
        #expect(state.groups[1]!.medoid == 2)
    }
}
