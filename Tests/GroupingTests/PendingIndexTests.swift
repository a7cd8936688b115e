import Foundation
import Grouping
import KindredTestSupport
import LinearAlgebra
import Testing
@testable import Grouping

/// The scope's pending marks kept as columns across refreshes (`PendingIndex`): it must follow the
/// marks exactly, and the marks it says a change can reach must include every one whose re-check
/// is not `.same`, so that re-checking only those decides as re-checking all.
@Suite struct PendingIndexTests {
    static let scope = Scope(owner: "o", category: "c")

    static func occurrences(_ ids: ClosedRange<Int64>) -> [Int64: Occurrence] {
        var out: [Int64: Occurrence] = [:]
        for id in ids {
            out[id] = Occurrence(id: id, owner: "o", category: id == 7 ? "other" : "c", description: "d\(id)", excerpt: "e",
                                 recordID: "r\(id)", recordRevision: 1, recordDate: nil, tags: [], vector: [Float(id), 1, 0])
        }
        return out
    }

    /// (id, first value of its row) of every live row, ids ascending.
    static func live(_ index: inout PendingIndex, _ occ: [Int64: Occurrence]) -> [(Int64, Float)] {
        var out: [(Int64, Float)] = []
        index.forEachLive(occ) { id, row in out.append((id, row[0])) }
        return out
    }

    @Test func followsTheMarksThroughDeparturesArrivalsAndReturns() {
        let occ = Self.occurrences(1...40)
        var state = PatternState()
        for id: Int64 in [2, 4, 6, 7, 8] { state.pending[id] = PendingMark(scope: occ[id]!.scope) }
        var log: [Int64] = []
        var index = PendingIndex(Self.scope, state, occ, k: 3, d: 3)
        #expect(index.all == [2, 4, 6, 8], "7 is of another category")
        #expect(Self.live(&index, occ).allSatisfy { $0.0 == Int64($0.1) })
        // 4 leaves, 9 and 12 arrive above every row; 6 is evaluated with a certificate.
        state.pending[4] = nil
        state.pending[9] = PendingMark(scope: Self.scope)
        state.pending[12] = PendingMark(scope: Self.scope)
        state.pending[6] = PendingMark(evaluatedAt: 3, certificate: PendingCertificate(at: 3, candidates: [1, 5], kthScore: 10, kthGroup: 5, stamp: 1),
                                       scope: Self.scope)
        log += [4, 9, 12, 6]
        index.sync(log, state, occ)
        #expect(index.all == [2, 6, 8, 9, 12])
        #expect(index.fresh == [2, 8, 9, 12])
        #expect(index.uncertified.isEmpty)
        #expect(Self.live(&index, occ).map(\.0) == [2, 6, 8, 9, 12])
        #expect(Self.live(&index, occ).allSatisfy { $0.0 == Int64($0.1) })
        // Only the work due before version 4 counts 6 (evaluated at 3); at 3 it is not due.
        #expect(index.due(lastChange: 4, watermark: nil, state: state) == [2, 6, 8, 9, 12])
        #expect(index.due(lastChange: 3, watermark: nil, state: state) == [2, 8, 9, 12])
        // A watermark covering marks evaluated before 4 counts 6 as evaluated at 5.
        #expect(index.due(lastChange: 5, watermark: PendingWatermark(below: 4, at: 5), state: state) == [2, 8, 9, 12])
        // 4 comes back (below the last row), 1 arrives below all; a copy taken before keeps its rows.
        let before = index
        state.pending[4] = PendingMark(scope: Self.scope)
        state.pending[1] = PendingMark(evaluatedAt: 2, scope: Self.scope)
        log += [4, 1]
        index.sync(log, state, occ)
        #expect(index.all == [1, 2, 4, 6, 8, 9, 12])
        #expect(index.uncertified == [1])
        #expect(Self.live(&index, occ).allSatisfy { $0.0 == Int64($0.1) })
        #expect(index.vector(of: 4)?[0] == 4)
        #expect(index.vector(of: 5) == nil)
        var copy = before
        #expect(copy.all == [2, 6, 8, 9, 12])
        #expect(Self.live(&copy, occ).map(\.0) == [2, 6, 8, 9, 12])
        // Everything leaves; the index empties.
        for id in state.pending.keys { state.pending[id] = nil; log.append(id) }
        index.sync(log, state, occ)
        #expect(index.all.isEmpty)
        #expect(Self.live(&index, occ).isEmpty)
    }

    /// Every mark whose re-check is not `.same` is among those `reachable` names: after groups of
    /// the scope took members, lost all of them, were combined, after a cannot-link came in, with
    /// a coarse score scale and K = 3 (many marks exactly at or one quantum off their K-th bound).
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func reachesEveryMarkWhoseRecheckIsNotSame(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let cfg = GroupingConfig(delta: 0.04, candidateK: 3, scoreScale: 200, blockSize: 4)
        let all = SyntheticData.history(seed: seed, records: 140, perRecord: 2, categories: ["c"], clusters: 12, dimension: 24,
                                        spread: 0.8, noiseShare: 0.3)
        var occ = Fixture.index(Array(all.prefix(200)))
        var corrections: [Correction] = []
        var state = try Fixture.refresh(PatternState(), occ, config: cfg).state
        var reachedSome = 0, notSame = 0
        for step in 0..<12 {
            let constraints = Constraints.derive(from: corrections, occurrences: occ)
            var ws = Workspace(state: state, occurrences: occ, constraints: constraints, config: cfg)
            let scope = all[0].scope
            ws.config = ws.config(for: scope)
            let groups = ws.state.groups.values.filter { $0.scope == scope && $0.medoid != nil }.map(\.id).sorted()
            guard groups.count >= 3 else { break }
            let a = groups[Int(rng.next() % UInt64(groups.count))], b = groups[Int(rng.next() % UInt64(groups.count))]
            switch step % 4 {
            case 0:
                // A pending occurrence joins a group.
                if let o = ws.state.pending.keys.sorted().first { ws.attach(o, to: a, source: .automatic(score: 0)); ws.settle(a) }
            case 1:
                // A group loses every member.
                for m in ws.state.groups[a]!.members { ws.detach(m.occurrenceID, from: a); ws.makePending(m.occurrenceID) }
                ws.settle(a)
            case 2:
                // Two groups combined: one's members move into the other.
                guard a != b else { continue }
                for m in ws.state.groups[b]!.members { ws.detach(m.occurrenceID, from: b); ws.attach(m.occurrenceID, to: a, source: .automatic(score: 0)) }
                ws.settle(b)
                ws.settle(a)
            default:
                // Two members leave one group.
                for m in ws.state.groups[a]!.members.prefix(2) { ws.detach(m.occurrenceID, from: a); ws.makePending(m.occurrenceID) }
                ws.settle(a)
            }
            let lastChange = ws.scopeGroups(scope).lastChange
            var index = ws.takeIndex(scope)
            let work = index.due(lastChange: lastChange, watermark: ws.state.checked[scope], state: ws.state)
            var ctx = AssignContext(&ws, scope: scope)
            ctx.plainStamp = constraints.cannotLink.isEmpty ? ws.stamp("", ctx) : nil
            let plain = Int(truncatingIfNeeded: ctx.configStamp & 0x1F_FFFF_FFFF_FFFF)
            let r = index.reachable(
                work, occ, groups: (ctx.order, ctx.changedAtStart), unit: { ctx.profile($0, ws)?.unitSum }, watermark: ctx.watermark,
                plainStamp: plain, scale: cfg.scoreScale, maxChanged: 8)
            let reached = Set(r ?? work)
            for oid in work {
                if case .same = ws.recheck(oid, &ctx) { continue }
                notSame += 1
                #expect(reached.contains(oid), "seed \(seed) step \(step): \(oid) is not reached")
            }
            reachedSome += reached.count < work.count ? 1 : 0
            // Then the real engine goes on: more occurrences, and now and then a dismissal.
            for o in all.dropFirst(200 + step * 6).prefix(6) { occ[o.id] = o }
            if step == 5, let g = state.sortedGroups.first(where: { $0.state == .active }), let m = g.members.last {
                let (c, _, _) = try PatternEngine.correct(
                    CorrectionRequest(kind: .dismiss(occurrence: m.occurrenceID, group: g.id), createdAt: "2026-01-01"),
                    id: 1, state: state, occurrences: occ, existing: corrections)
                corrections.append(c)
            }
            state = try Fixture.refresh(state, occ, corrections, config: cfg).state
        }
        #expect(notSame > 0, "some re-checks were not .same")
        #expect(reachedSome > 0, "the index left some marks out")
    }

    /// The engine that re-checks only what the index reaches (a small `blockSize` turns it on)
    /// returns the very state of the one that re-checks every mark (a large one): placements,
    /// a dismissal and a split, occurrences that go.
    @Test(arguments: [UInt64(3), 4, 5])
    func placementsGiveTheSameStateWithAndWithoutTheIndex(seed: UInt64) throws {
        var indexConfig = GroupingConfig()
        indexConfig.blockSize = 4
        var everyConfig = GroupingConfig()
        everyConfig.blockSize = 1_000_000
        var occ: [Int64: Occurrence] = [:]
        for o in SyntheticData.history(seed: seed, records: 160, perRecord: 2, clusters: 10, dimension: 32, spread: 0.7, noiseShare: 0.5) {
            occ[o.id] = o
        }
        var corrections: [Correction] = []
        // Each side keeps its engine's cache from one refresh to the next, as the service does.
        var cacheA = EngineCache(), cacheB = EngineCache()
        var a = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), config: indexConfig, cache: &cacheA).state
        var b = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), config: everyConfig, cache: &cacheB).state
        #expect(a == b)
        #expect(a.pending.count >= 8, "enough pending occurrences for the index to be used")
        let extra = SyntheticData.history(seed: seed &+ 50, records: 30, perRecord: 1, clusters: 10, dimension: 32, spread: 0.7,
                                          noiseShare: 0.3, firstID: 9000, firstRecord: 900)
        for (step, o) in extra.enumerated() {
            occ[o.id] = o
            if step == 8, let g = a.sortedGroups.first(where: { $0.state == .active && $0.members.count >= 3 }) {
                let (c, _, _) = try PatternEngine.correct(
                    CorrectionRequest(kind: .dismiss(occurrence: g.members[1].occurrenceID, group: g.id), createdAt: "2026-01-01"),
                    id: 1, state: a, occurrences: occ, existing: corrections)
                corrections.append(c)
            }
            if step == 16, let g = a.sortedGroups.last(where: { $0.state == .active && $0.members.count >= 4 }) {
                let (c, _, _) = try PatternEngine.correct(
                    CorrectionRequest(kind: .split(group: g.id, moveOut: [g.members[0].occurrenceID, g.members[1].occurrenceID]),
                                      createdAt: "2026-01-02"),
                    id: 2, state: a, occurrences: occ, existing: corrections)
                corrections.append(c)
            }
            if step % 7 == 6, let gone = a.sortedGroups.first(where: { $0.members.count >= 3 })?.members.first?.occurrenceID { occ[gone] = nil }
            let constraints = Constraints.derive(from: corrections, occurrences: occ)
            a = try PatternEngine.refresh(state: consume a, occurrences: occ, constraints: constraints, config: indexConfig, cache: &cacheA).state
            b = try PatternEngine.refresh(state: consume b, occurrences: occ, constraints: constraints, config: everyConfig, cache: &cacheB).state
            #expect(a == b, "step \(step)")
        }
    }
}
