import Foundation
import Grouping
import KindredTestSupport
import Testing
@testable import Grouping

/// The scope's pending vectors kept as one matrix across refreshes (`PendingRows`).
@Suite struct PendingRowsTests {
    static func occurrences(_ ids: ClosedRange<Int64>) -> [Int64: Occurrence] {
        var out: [Int64: Occurrence] = [:]
        for id in ids {
            out[id] = Occurrence(id: id, owner: "o", category: "c", description: "d\(id)", excerpt: "e", recordID: "r\(id)",
                                 recordRevision: 1, recordDate: nil, tags: [], vector: [Float(id), 1, 0])
        }
        return out
    }

    /// (id, first value of its row) of every live row, ids ascending.
    static func live(_ rows: PendingRows) -> [(Int64, Float)] {
        var out: [(Int64, Float)] = []
        rows.forEachLive { id, row in out.append((id, row[0])) }
        return out
    }

    @Test func followsThePendingListThroughDeparturesArrivalsAndReturns() {
        let occ = Self.occurrences(1...40)
        var rows = PendingRows(d: 3)
        rows.sync(to: [2, 4, 6, 8], occ)
        #expect(Self.live(rows).map(\.0) == [2, 4, 6, 8])
        #expect(Self.live(rows).allSatisfy { $0.0 == Int64($0.1) })
        // 4 leaves, 9 and 12 arrive above every row.
        rows.sync(to: [2, 6, 8, 9, 12], occ)
        #expect(Self.live(rows).map(\.0) == [2, 6, 8, 9, 12])
        #expect(Self.live(rows).allSatisfy { $0.0 == Int64($0.1) })
        // 4 comes back (below the last row): the rows are rebuilt, still in order.
        rows.sync(to: [2, 4, 9, 12], occ)
        #expect(Self.live(rows).map(\.0) == [2, 4, 9, 12])
        // Look-ups in ascending order find each live row and nothing else.
        var lookup = rows.lookup()
        #expect(lookup.row(1) == nil)
        #expect(lookup.row(2)?[0] == 2)
        #expect(lookup.row(6) == nil)
        #expect(lookup.row(9)?[0] == 9)
        #expect(lookup.row(12)?[0] == 12)
        #expect(lookup.row(13) == nil)
        // A copy taken before a change keeps its rows.
        let before = rows
        rows.sync(to: [30], Self.occurrences(1...40))
        #expect(Self.live(before).map(\.0) == [2, 4, 9, 12])
        #expect(Self.live(rows).map(\.0) == [30])
        rows.sync(to: [], occ)
        #expect(Self.live(rows).isEmpty)
    }

    /// Re-checks and seeding that read vectors from the rows (a small `blockSize` turns that on)
    /// decide exactly as the look-ups do (a large one), placement after placement.
    @Test(arguments: [UInt64(3), 4])
    func placementsDecideAlikeWithAndWithoutRows(seed: UInt64) throws {
        var rowsConfig = GroupingConfig()
        rowsConfig.blockSize = 4
        var lookUpConfig = GroupingConfig()
        lookUpConfig.blockSize = 1_000_000
        var occ: [Int64: Occurrence] = [:]
        for o in SyntheticData.history(seed: seed, records: 160, perRecord: 2, clusters: 10, dimension: 32, spread: 0.7, noiseShare: 0.5) {
            occ[o.id] = o
        }
        var a = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), config: rowsConfig).state
        var b = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), config: lookUpConfig).state
        #expect(KeptShortcutTests.decisions(a) == KeptShortcutTests.decisions(b))
        #expect(a.pending.count >= 8, "enough pending occurrences for the rows to be used")
        let extra = SyntheticData.history(seed: seed &+ 50, records: 20, perRecord: 1, clusters: 10, dimension: 32, spread: 0.7,
                                          noiseShare: 0.3, firstID: 9000, firstRecord: 900)
        for (step, o) in extra.enumerated() {
            occ[o.id] = o
            a = try PatternEngine.refresh(state: consume a, occurrences: occ, constraints: Constraints(), config: rowsConfig).state
            b = try PatternEngine.refresh(state: consume b, occurrences: occ, constraints: Constraints(), config: lookUpConfig).state
            #expect(KeptShortcutTests.decisions(a) == KeptShortcutTests.decisions(b), "step \(step)")
        }
    }
}

/// Occurrences evicted by the stay check during a refresh are offered to seeding again in the same
/// refresh: the refresh ends with no fresh pending occurrence, and a second one changes nothing.
@Suite struct EvictionTests {
    /// A unit vector at `degrees` in a plane (cosine similarity = cos of the angle between).
    static func at(_ id: Int64, _ degrees: Double) -> Occurrence {
        let r = degrees * .pi / 180
        return Occurrence(id: id, owner: "o", category: "c", description: "d\(id)", excerpt: "e", recordID: "r\(id)",
                          recordRevision: 1, recordDate: nil, tags: [], vector: [Float(cos(r)), Float(sin(r)), 0])
    }

    @Test func aMemberLeftBehindByItsMedoidIsSeededAndEvaluatedAgain() throws {
        // A and B seed a group; C (60°) joins it; members arriving near -35° pull the medoid away
        // until C is 90° from it and the stay check evicts it.
        var occ: [Int64: Occurrence] = [1: Self.at(1, 0), 2: Self.at(2, 10)]
        var state = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints()).state
        var evicted = 0
        for (id, degrees) in [(3, 60.0), (4, -30), (5, -35), (6, -40), (7, -32), (8, -38)] {
            occ[Int64(id)] = Self.at(Int64(id), degrees)
            let out = try PatternEngine.refresh(state: consume state, occurrences: occ, constraints: Constraints())
            evicted += out.stats.evicted
            state = out.state
            #expect(state.settledAt == state.groupsVersion, "after \(id)")
            #expect(state.pending.values.allSatisfy { $0.evaluatedAt != nil }, "a fresh occurrence is left after \(id)")
            let again = try PatternEngine.refresh(state: state, occurrences: occ, constraints: Constraints())
            #expect(again.changedGroups.isEmpty && again.state == state, "a second refresh changed something after \(id)")
        }
        #expect(evicted == 1)
        #expect(state.pending[3] != nil, "C waits, evaluated")
    }
}
