import Grouping
import KindredTestSupport
import LinearAlgebra
import Foundation
import Testing

/// Incremental placement (pending occurrences re-evaluated only when a change can reach their
/// candidates, judged by their certificates) must give exactly the state that evaluating every
/// pending occurrence of the scope in full gives.
@Suite struct PlacementTests {
    /// The state without certificates: every pending occurrence is evaluated in full when a group
    /// of its scope changed (the behaviour before certificates).
    static func withoutCertificates(_ s: PatternState) -> PatternState {
        var out = s.materialized
        out.pending = out.pending.mapValues { PendingMark(evaluatedAt: $0.evaluatedAt, scope: $0.scope) }
        return out
    }

    /// Everything but the certificates.
    static func comparable(_ s: PatternState) -> PatternState { withoutCertificates(s) }

    static func history(seed: UInt64, records: Int, firstID: Int64 = 1, firstRecord: Int = 0) -> [Occurrence] {
        SyntheticData.history(seed: seed, records: records, perRecord: 2, categories: ["person", "place"], clusters: 10,
                              dimension: 48, spread: 0.6, noiseShare: 0.25, firstID: firstID, firstRecord: firstRecord)
    }

    @Test(arguments: [UInt64(41), 42, 43, 44])
    func placingOneByOneEqualsFullReevaluation(seed: UInt64) throws {
        let base = Self.history(seed: seed, records: 120)
        var occ = Fixture.index(base)
        let built = try Fixture.refresh(PatternState(), occ).state
        #expect(built.pending.values.contains { $0.certificate != nil })
        // New occurrences from the same situations (another seed's history has other centres, so
        // take later records of the same history).
        let later = Self.history(seed: seed, records: 160).suffix(80)
        var incremental = built
        var reference = built
        for o in later {
            occ[o.id] = o
            let a = try Fixture.refresh(incremental, occ)
            let b = try Fixture.refresh(Self.withoutCertificates(reference), occ)
            #expect(Self.comparable(a.state) == Self.comparable(b.state), "occurrence \(o.id)")
            #expect(a.changedGroups == b.changedGroups)
            #expect(a.stats == b.stats)
            #expect(Invariants.check(a.state, occ).isEmpty)
            incremental = a.state
            reference = b.state
        }
        // Idempotent afterwards.
        let again = try Fixture.refresh(incremental, occ)
        #expect(again.state == incremental)
        #expect(again.changedGroups.isEmpty)
    }

    @Test(arguments: [UInt64(51), 52])
    func batchesAndCorrectionsEqualFullReevaluation(seed: UInt64) throws {
        let all = Self.history(seed: seed, records: 200)
        var occ = Fixture.index(Array(all.prefix(240)))
        var state = try Fixture.refresh(PatternState(), occ).state
        // Dismiss a member of the first few groups: cannot-links change the certificates' stamps.
        var corrections: [Correction] = []
        for g in state.sortedGroups.filter({ $0.state == .active }).prefix(4) {
            guard let member = g.members.last else { continue }
            let (c, _, outcome) = try PatternEngine.correct(
                CorrectionRequest(kind: .dismiss(occurrence: member.occurrenceID, group: g.id), createdAt: "2026-01-01"),
                id: Int64(corrections.count + 1), state: state, occurrences: occ, existing: corrections)
            corrections.append(c)
            state = outcome.state
        }
        // Add the rest in batches of 20.
        var reference = state
        for start in stride(from: 240, to: all.count, by: 20) {
            for o in all[start..<min(all.count, start + 20)] { occ[o.id] = o }
            let a = try Fixture.refresh(state, occ, corrections)
            let b = try Fixture.refresh(Self.withoutCertificates(reference), occ, corrections)
            #expect(Self.comparable(a.state) == Self.comparable(b.state), "batch at \(start)")
            #expect(a.changedGroups == b.changedGroups)
            state = a.state
            reference = b.state
        }
        #expect(Invariants.check(state, occ).isEmpty)
    }

    /// A pending occurrence that a new group could take: the certificate must not hide it.
    @Test func newGroupNearAPendingOccurrenceIsSeen() throws {
        let cfg = GroupingConfig(tauRep: 0.8, tauSup: 0.8, tauSeed: 0.9, delta: 0.01, tauStay: 0.7, candidateK: 1)
        var occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0, 0, 0)),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.05, 0, 0)),
        ])
        let seeded = try Fixture.refresh(PatternState(), occ, config: cfg).state
        // Pending: close enough to a future group around (0, 1), not to the first one.
        occ[3] = Fixture.occ(3, record: "c", Fixture.vec(0.2, 1, 0.3, 0))
        let first = try Fixture.refresh(seeded, occ, config: cfg).state
        #expect(first.pending[3]?.certificate?.candidates == [1])
        occ[4] = Fixture.occ(4, record: "d", Fixture.vec(0, 1, 0.2, 0))
        occ[5] = Fixture.occ(5, record: "e", Fixture.vec(0, 1, 0.25, 0))
        let a = try Fixture.refresh(first, occ, config: cfg)
        let b = try Fixture.refresh(Self.withoutCertificates(first), occ, config: cfg)
        #expect(Self.comparable(a.state) == Self.comparable(b.state))
        #expect(a.state.group(of: 3)?.memberIDs == [3, 4, 5])
    }
    /// A pending occurrence with a changed candidate below τ_rep of that candidate's medoid keeps its
    /// decision without being evaluated again, but only while the medoid is the one it was
    /// evaluated against. Here x is torn between groups A and B (within δ); B takes members on the
    /// far side until its medoid moves past τ_rep of x while its centroid stays among x's top K:
    /// B is no longer eligible, so x must join A, as a full re-evaluation says. (Block size 1: the
    /// pending index names the marks to re-check, and must name x too.)
    @Test(arguments: [256, 1])
    func candidateWhoseMedoidMovedAwayIsEvaluatedAgain(blockSize: Int) throws {
        let cfg = GroupingConfig(tauRep: 0.7, tauSup: 0.5, tauSeed: 0.95, delta: 0.1, tauStay: 0.3, combineLink: 1.5,
                                 candidateK: 3, blockSize: blockSize, calibratedBackground: nil)
        func at(_ degrees: Float) -> [Float] {
            let r = degrees * .pi / 180
            return Fixture.vec(cos(r), sin(r))
        }
        var occ = Fixture.index([
            Fixture.occ(1, record: "a1", at(-25)), Fixture.occ(2, record: "a2", at(-27)),
            Fixture.occ(3, record: "b1", at(24)), Fixture.occ(4, record: "b2", at(26)),
            Fixture.occ(5, record: "c1", at(150)), Fixture.occ(6, record: "c2", at(152)),
            Fixture.occ(7, record: "x", at(0)),
        ])
        var state = try Fixture.refresh(PatternState(), occ, config: cfg).state
        let a = try #require(state.group(of: 1)), b = try #require(state.group(of: 3)), c = try #require(state.group(of: 5))
        #expect(state.pending[7]?.certificate?.candidates == [a.id, b.id, c.id].sorted())
        // B takes 50° (its medoid moves to 26°, x stays torn), then 55° (its medoid moves to 50°).
        for (id, degrees) in [(Int64(8), Float(50)), (9, 55)] {
            occ[id] = Fixture.occ(id, record: "b\(id)", at(degrees))
            let incremental = try Fixture.refresh(state, occ, config: cfg)
            let full = try Fixture.refresh(Self.withoutCertificates(state), occ, config: cfg)
            #expect(Self.comparable(incremental.state) == Self.comparable(full.state), "occurrence \(id)")
            #expect(incremental.state.group(of: id)?.id == b.id)
            state = incremental.state
        }
        #expect(state.groups[b.id]?.medoid == 8)
        #expect(state.group(of: 7)?.id == a.id)
    }
}
