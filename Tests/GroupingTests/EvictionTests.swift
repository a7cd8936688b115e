import Foundation
import Grouping
import Testing

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
        // A and B seed a group; C (60°) joins it, then members near -35°, each join keeping every
        // member. When A and B are deleted the medoid moves to the -35° side, C is 90° from it,
        // and the stay check evicts it. (A join is never made that would evict: `JoinStayTests`.)
        var occ: [Int64: Occurrence] = [1: Self.at(1, 0), 2: Self.at(2, 10)]
        var state = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints()).state
        var evicted = 0
        func step(_ what: String) throws {
            let out = try PatternEngine.refresh(state: state, occurrences: occ, constraints: Constraints())
            evicted += out.stats.evicted
            state = out.state
            #expect(state.settledAt == state.groupsVersion, "after \(what)")
            #expect(state.pending.values.allSatisfy { $0.evaluatedAt != nil }, "a fresh occurrence is left after \(what)")
            let again = try PatternEngine.refresh(state: state, occurrences: occ, constraints: Constraints())
            #expect(again.changedGroups.isEmpty && again.state == state, "a second refresh changed something after \(what)")
        }
        for (id, degrees) in [(3, 60.0), (4, -30), (5, -35), (6, -40)] {
            occ[Int64(id)] = Self.at(Int64(id), degrees)
            try step("adding \(id)")
        }
        #expect(Fixture.memberSets(state) == [1: [1, 2, 3, 4, 5, 6]])
        #expect(evicted == 0)
        occ[1] = nil
        occ[2] = nil
        try step("deleting 1 and 2")
        #expect(evicted == 1)
        #expect(state.pending[3] != nil, "C waits, evaluated")
    }
}
