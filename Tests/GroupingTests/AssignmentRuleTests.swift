import Grouping
import Testing

@Suite struct AssignmentRuleTests {
    func unit(_ degrees: Float) -> [Float] {
        let r = degrees * .pi / 180
        return Fixture.vec(cosine(r), sine(r))
    }

    func cosine(_ x: Float) -> Float { sine(x + .pi / 2) }

    func sine(_ x: Float) -> Float {
        var term = x, sum: Float = 0
        for n in stride(from: 1, through: 21, by: 2) {
            sum += term
            term *= -x * x / Float((n + 1) * (n + 2))
        }
        return sum
    }

    /// Tags only propose candidates: with K = 0 a group is considered only through a shared tag,
    /// and then the semantic evidence still decides.
    @Test func tagsProposeCandidatesButEvidenceDecides() throws {
        let cfg = GroupingConfig(candidateK: 0)
        var occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1), tags: ["train"]),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.12), tags: ["train"]),
        ])
        let s = try Fixture.refresh(PatternState(), occ, config: cfg).state
        occ[3] = Fixture.occ(3, record: "c", Fixture.vec(1, 0.11))                   // similar, no tag
        occ[4] = Fixture.occ(4, record: "d", Fixture.vec(0, 1), tags: ["train"])     // tag, not similar
        occ[5] = Fixture.occ(5, record: "e", Fixture.vec(1, 0.09), tags: ["train"])  // both
        let out = try Fixture.refresh(s, occ, config: cfg)
        let g = try #require(out.state.sortedGroups.first)
        #expect(g.memberIDs == [1, 2, 5])
        #expect(out.state.pending.keys.sorted() == [3, 4])
        if case let .automatic(score) = g.membership(of: 5)?.source { #expect(score > 9_000) } else { Issue.record("not automatic") }
    }

    /// After B leaves, the medoid moves and the automatic member far from it is evicted to pending.
    @Test func stayCheckEvictsAfterTheMedoidMoves() throws {
        let cfg = GroupingConfig(tauRep: 0.6, tauSup: 0.6, tauSeed: 0.6, tauStay: 0.7)
        var occ = Fixture.index([
            Fixture.occ(1, record: "b", unit(40)),
            Fixture.occ(2, record: "a", unit(0)),
            Fixture.occ(3, record: "c", unit(70)),
        ])
        // Seed {B, A} first, then C joins through B (medoid) and its supporting examples.
        let seeded = try Fixture.refresh(PatternState(), Fixture.index([occ[1]!, occ[2]!]), config: cfg).state
        let joined = try Fixture.refresh(seeded, occ, config: cfg)
        let g = try #require(joined.state.sortedGroups.first)
        #expect(g.memberIDs == [1, 2, 3])
        #expect(g.medoid == 1)
        occ[1] = nil
        let out = PatternEngine.removeOccurrences([1], from: joined.state, occurrences: occ, config: cfg)
        let after = try #require(out.state.groups[g.id])
        #expect(after.medoid == 2)
        #expect(after.memberIDs == [2])
        #expect(after.state == .dormant)
        #expect(out.state.pending[3] == .fresh)
        #expect(out.stats.evicted == 1)
    }

    /// Quantised scores: the exact same inputs give the same integer score and the best group
    /// must beat the runner-up by δ.
    @Test(arguments: [Float(0.0), 0.02, 0.2])
    func marginDecidesBetweenCloseGroups(delta: Float) throws {
        // (Combining groups is off: the two groups here would be combined, see CombinationTests.)
        let cfg = GroupingConfig(tauSeed: 0.97, delta: delta, combineLink: 2)
        var occ = Fixture.index([
            Fixture.occ(1, record: "a", unit(0)), Fixture.occ(2, record: "b", unit(2)),
            Fixture.occ(3, record: "c", unit(30)), Fixture.occ(4, record: "d", unit(32)),
        ])
        let s = try Fixture.refresh(PatternState(), occ, config: cfg).state
        #expect(s.groups.count == 2)
        occ[5] = Fixture.occ(5, record: "e", unit(13))   // slightly closer to the first group
        let out = try Fixture.refresh(s, occ, config: cfg)
        if delta <= 0.02 {
            #expect(out.state.group(of: 5)?.memberIDs == [1, 2, 5])
        } else {
            #expect(out.state.pending[5] != nil)
        }
    }
}
