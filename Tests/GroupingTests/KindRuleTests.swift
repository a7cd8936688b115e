import Grouping
import Testing

/// Records of two kinds never share a group made automatically (`KindRule.swift`).
@Suite struct KindRuleTests {
    /// Occurrence `id` of record "r<id>" of `kind`, all near one direction (pairwise above τ_seed).
    static func near(_ id: Int64, _ kind: String) -> Occurrence {
        var xs: [Float] = [4, 0, 0, 0, 0, 0, 0, 0]
        xs[Int(id % 7) + 1] = 1
        let o = Fixture.occ(id, record: "r\(id)", Fixture.vec(xs[0], xs[1], xs[2], xs[3], xs[4], xs[5], xs[6], xs[7]))
        return Occurrence(id: o.id, owner: o.owner, category: o.category, description: o.description, excerpt: o.excerpt,
                          recordID: o.recordID, recordRevision: 1, recordDate: o.recordDate, recordKind: kind, vector: o.vector)
    }

    static func kinds(_ s: PatternState, _ occ: [Int64: Occurrence]) -> [Set<String>] {
        s.sortedGroups.map { g in Set(g.members.compactMap { occ[$0.occurrenceID]?.recordKind }) }
    }

    /// Three dreams and three notes, all alike: one group of each kind, not one of six. The same
    /// occurrences with one kind (or none) make one group.
    @Test func dreamsAndNotesThatAreAlikeMakeAGroupEach() throws {
        let occ = Fixture.index((1...6).map { Self.near($0, $0 % 2 == 0 ? "dream" : "note") })
        let out = try Fixture.refresh(PatternState(), occ)
        #expect(Self.kinds(out.state, occ) == [["note"], ["dream"]])
        #expect(Fixture.memberSets(out.state) == [1: [1, 3, 5], 2: [2, 4, 6]])
        #expect(Invariants.check(out.state, occ).isEmpty)

        let oneKind = Fixture.index((1...6).map { Self.near($0, "dream") })
        #expect(Fixture.memberSets(try Fixture.refresh(PatternState(), oneKind).state) == [1: [1, 2, 3, 4, 5, 6]])
        let none = Fixture.index((1...6).map { Self.near($0, "") })
        #expect(Fixture.memberSets(try Fixture.refresh(PatternState(), none).state) == [1: [1, 2, 3, 4, 5, 6]])
    }

    /// A note that arrives later stays out of the dreams' group (pending: no other note to seed
    /// with), and a second and third note found their own.
    @Test func aLaterNoteDoesNotJoinTheDreams() throws {
        var occ = Fixture.index((1...3).map { Self.near($0, "dream") })
        var state = try Fixture.refresh(PatternState(), occ).state
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3]])
        occ[4] = Self.near(4, "note")
        state = try Fixture.refresh(state, occ).state
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3]] && state.pending[4] != nil)
        occ[5] = Self.near(5, "note")
        occ[6] = Self.near(6, "note")
        state = try Fixture.refresh(state, occ).state
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3], 2: [4, 5, 6]])
    }

    /// The person decides otherwise where they like: a merge of the notes' group into the dreams'
    /// is made, and a later refresh keeps it.
    @Test func aMergeAcrossKindsIsThePersonsToMake() throws {
        let occ = Fixture.index((1...6).map { Self.near($0, $0 % 2 == 0 ? "dream" : "note") })
        let state = try Fixture.refresh(PatternState(), occ).state
        let (_, constraints, merged) = try PatternEngine.correct(
            CorrectionRequest(kind: .merge(into: 2, from: 1), note: nil, createdAt: "t"), id: 1, state: state,
            occurrences: occ, existing: [])
        #expect(Fixture.memberSets(merged.state)[2] == [1, 2, 3, 4, 5, 6])
        let again = try PatternEngine.refresh(state: merged.state, occurrences: occ, constraints: constraints)
        #expect(Fixture.memberSets(again.state)[2] == [1, 2, 3, 4, 5, 6])
    }
}
