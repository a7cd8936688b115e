import Foundation
import Grouping
import KindredTestSupport
import LinearAlgebra
import Testing

/// A state keeps a few derived values to save work (each group's centroid, each pending
/// occurrence's scope, the version at which every scope was settled). They must never
/// change a decision: the same refresh over a state stripped of them gives the same groups.
@Suite struct KeptShortcutTests {
    /// `s` without anything the engine can derive again. (The watermarks are written into the
    /// marks first: a mark without its scope is never covered by one.)
    static func stripped(_ s: PatternState) -> PatternState {
        var out = s.materialized
        out.settledAt = nil
        for id in out.groups.keys {
            out.groups[id]!.centroid = nil
        }
        for id in out.pending.keys { out.pending[id]!.scope = nil }
        return out
    }

    /// Groups and pending marks without the kept values (the part that holds decisions).
    static func decisions(_ state: PatternState) -> [String] {
        // (Marks counted as evaluated where their scope's watermark says.)
        let s = state.materialized
        var out = s.sortedGroups.map { "\($0.id) \($0.memberIDs) \($0.medoid.map(String.init) ?? "-") \($0.exemplars) \($0.state) v\($0.version)" }
        for (id, m) in s.pending.sorted(by: { $0.key < $1.key }) {
            out.append("p\(id) \(m.evaluatedAt.map(String.init) ?? "fresh") \(m.certificate.map { "\($0.candidates)@\($0.at)" } ?? "-")")
        }
        return out
    }

    @Test(arguments: [UInt64(41), 42, 43])
    func strippedAndKeptStatesDecideAlikeThroughEditsRemovalsAndDismissals(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var occ = Fixture.index(Fixture.synthetic(seed: seed, records: 40))
        var corrections: [Correction] = []
        var state = try Fixture.refresh(PatternState(), occ).state
        var nextID: Int64 = 1000, nextRecord = 500
        for step in 0..<12 {
            switch step % 3 {
            case 0:
                // New records arrive.
                for o in Fixture.synthetic(seed: seed &+ UInt64(step), records: 3, firstID: nextID, firstRecord: nextRecord) { occ[o.id] = o }
                nextID += 100
                nextRecord += 3
            case 1:
                // A record is deleted: its occurrences leave at once.
                let records = Set(occ.values.map(\.recordID)).sorted()
                let victim = records[Int.random(in: 0..<records.count, using: &rng)]
                let gone = Set(occ.values.filter { $0.recordID == victim }.map(\.id))
                for id in gone { occ[id] = nil }
                state = PatternEngine.removeOccurrences(gone, from: state, occurrences: occ).state
            default:
                // The user dismisses a member of some group.
                let groups = state.sortedGroups.filter { $0.state == .active && $0.members.count >= 2 }
                guard !groups.isEmpty else { continue }
                let g = groups[Int.random(in: 0..<groups.count, using: &rng)]
                let o = g.members[Int.random(in: 0..<g.members.count, using: &rng)].occurrenceID
                let c = try PatternEngine.correct(CorrectionRequest(kind: .dismiss(occurrence: o, group: g.id), createdAt: "t"),
                                                  id: Int64(corrections.count + 1), state: state, occurrences: occ, existing: corrections)
                corrections.append(c.correction)
                state = c.outcome.state
            }
            let kept = try Fixture.refresh(state, occ, corrections)
            let plain = try Fixture.refresh(Self.stripped(state), occ, corrections)
            #expect(Self.decisions(kept.state) == Self.decisions(plain.state), "step \(step)")
            #expect(kept.changedGroups == plain.changedGroups, "step \(step)")
            #expect(Invariants.check(kept.state, occ).isEmpty, "step \(step)")
            state = kept.state
        }
    }

    @Test func keptCentroidsEqualWhatTheMembersGive() throws {
        let occ = Fixture.index(Fixture.synthetic(seed: 7, records: 60))
        let s = try Fixture.refresh(PatternState(), occ).state
        #expect(s.settledAt == s.groupsVersion)
        var checked = 0
        for g in s.sortedGroups where !g.members.isEmpty {
            var sum = [Float](repeating: 0, count: occ.values.first!.vector.count)
            for m in g.members { for (i, x) in occ[m.occurrenceID]!.vector.enumerated() { sum[i] += x } }
            #expect(g.centroid?.values == Vectors.normalized(sum), "group \(g.id)")
            checked += 1
        }
        #expect(checked > 3)
        for (id, m) in s.pending { #expect(m.scope == occ[id]!.scope) }
    }

    @Test func stateSurvivesJSONExactly() throws {
        let occ = Fixture.index(Fixture.synthetic(seed: 8, records: 50))
        let s = try Fixture.refresh(PatternState(), occ).state
        let data = try JSONEncoder().encode(s)
        let back = try JSONDecoder().decode(PatternState.self, from: data)
        #expect(back == s)
        #expect(back.settledAt == s.settledAt)
        #expect(back.sortedGroups.map(\.centroid) == s.sortedGroups.map(\.centroid))
        #expect(back.pending.mapValues(\.scope) == s.pending.mapValues(\.scope))
    }

    @Test func membershipsAreStoredFlatAndOlderKeyedOnesStillRead() throws {
        let ms = [Membership(occurrenceID: 7, groupID: 2, source: .automatic(score: 6123)),
                  Membership(occurrenceID: 9, groupID: 2, source: .pinned), Membership(occurrenceID: 11, groupID: 2, source: .moved)]
        let text = String(decoding: try JSONEncoder().encode(ms), as: UTF8.self)
        #expect(text == #"[[7,2,6123],[9,2,"pinned"],[11,2,"moved"]]"#)
        #expect(try JSONDecoder().decode([Membership].self, from: Data(text.utf8)) == ms)
        let older = #"[{"occurrenceID":7,"groupID":2,"source":{"automatic":{"score":6123}}},"#
            + #"{"groupID":2,"occurrenceID":9,"source":{"pinned":{}}},{"occurrenceID":11,"groupID":2,"source":{"moved":{}}}]"#
        #expect(try JSONDecoder().decode([Membership].self, from: Data(older.utf8)) == ms)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Membership.self, from: Data(#"[1,2,"lost"]"#.utf8)) }
    }

    @Test func packedVectorsRoundTripBitForBitAndRefuseBadText() throws {
        let v = PackedVector([0, -0.0, 1, -1.5, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1])
        let back = try JSONDecoder().decode(PackedVector.self, from: JSONEncoder().encode(v))
        #expect(back.values.map(\.bitPattern) == v.values.map(\.bitPattern))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PackedVector.self, from: Data("\"abc\"".utf8)) }
    }

    @Test func aPlacementIntoASettledStateLooksOnlyAtItsOwnScope() throws {
        var occ = Fixture.index(Fixture.synthetic(seed: 9, records: 60))
        let s = try Fixture.refresh(PatternState(), occ).state
        let g = try #require(s.sortedGroups.first { $0.state == .active && $0.category == "person" })
        let medoid = occ[g.medoid!]!
        occ[5000] = Fixture.occ(5000, record: "new", medoid.vector, category: "person")
        let out = try Fixture.refresh(s, occ)
        #expect(out.state.groups[g.id]!.memberIDs.contains(5000))
        #expect(out.changedGroups == [g.id])
        #expect(out.state.settledAt == out.state.groupsVersion)
        // Other scopes are untouched, and a second refresh finds nothing to do.
        let again = try Fixture.refresh(out.state, occ)
        #expect(again.state == out.state)
        #expect(again.changedGroups.isEmpty)
    }
}
