import Testing
import KindredCore
import JSONRPC
@testable import Service

@Suite struct PatternCorrectionTests {
    /// Four teacher records in one group; returns their occurrence ids.
    func teachers(_ f: PatternFixture, count: Int = 4) throws -> [Int64] {
        let ids = try (1...count).map { try f.record("t\($0)", "teacher \($0)") }
        try f.refresh()
        return ids
    }

    func together(_ f: PatternFixture, _ a: String, _ b: String) throws -> Bool {
        try f.groupRecords().values.contains { $0.contains(a) && $0.contains(b) }
    }

    @Test func dismissalIsHonouredByLaterRefreshesAndAfterEdits() throws {
        let f = try PatternFixture()
        let occ = try teachers(f, count: 3)
        #expect(try f.groupRecords()[1] == ["t1", "t2", "t3"])
        let r = try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": .int(occ[2]), "note": "not her"]])
        #expect(r["affectedGroups"] == [1])
        #expect(try f.groupRecords()[1] == ["t1", "t2"])
        try f.refresh()
        try f.refresh()
        #expect(try !together(f, "t1", "t3"))
        // The record is edited and re-analysed: the dismissal still keeps it apart.
        try f.record("t3", "teacher 3", rev: 2)
        try f.refresh()
        #expect(try !together(f, "t1", "t3"))
        #expect(try !together(f, "t2", "t3"))
        let list = try #require(try f.call("patterns/corrections", ["owner": "o"])["corrections"]?.arrayValue)
        #expect(list.count == 1)
        #expect(list[0]["note"] == "not her")
        #expect(try f.call("patterns/group", ["owner": "o", "groupId": 1])["corrections"]?.arrayValue?.count == 1)
    }

    @Test func aSplitOfTwoTeachersStaysSplit() throws {
        let f = try PatternFixture()
        let occ = try teachers(f)
        #expect(try f.groupRecords()[1] == ["t1", "t2", "t3", "t4"])
        let r = try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "split", "groupId": 1, "moveOut": [.int(occ[2]), .int(occ[3])]]])
        #expect(r["affectedGroups"] == [1, 2])
        #expect(try f.groupRecords() == [1: ["t1", "t2"], 2: ["t3", "t4"]])
        let members = try #require(try f.group(2)["members"]?.arrayValue)
        #expect(members.allSatisfy { $0["source"] == "moved" })
        let rows = try f.patternRows()
        try f.refresh()
        #expect(try f.patternRows() == rows)
        // New evidence and edits never bring the two sides back together.
        try f.record("t5", "teacher 5")
        try f.record("t3", "teacher 3", rev: 2)
        try f.refresh()
        try f.call("patterns/rebuild", ["owner": "o"])
        for a in ["t1", "t2"] { for b in ["t3", "t4"] { #expect(try !together(f, a, b)) } }
    }

    @Test func aContradictionIsRefusedNamingBothRecords() throws {
        let f = try PatternFixture()
        let occ = try teachers(f)
        try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "split", "groupId": 1, "moveOut": [.int(occ[2]), .int(occ[3])]]])
        let rows = try f.patternRows()
        let e = try #require(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "merge", "groupId": 1, "fromGroupId": 2]]))
        #expect(e.code == .constraintConflict)
        #expect(e.code.rawValue == -32020)
        let named = Set([e.data?["recordA"]?.stringValue, e.data?["recordB"]?.stringValue].compactMap { $0 })
        #expect(named.count == 2)
        #expect(named.isSubset(of: ["t1", "t2", "t3", "t4"]))
        #expect(named.contains { ["t1", "t2"].contains($0) } && named.contains { ["t3", "t4"].contains($0) })
        #expect(e.message.contains(named.sorted()[0]) && e.message.contains(named.sorted()[1]))
        #expect(try f.patternRows() == rows)
        let pin = f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "pin", "groupId": 1, "occurrenceId": .int(occ[2])]])
        #expect(pin?.code == .constraintConflict)
    }

    @Test func undoingADismissalLetsTheOccurrenceBackIn() throws {
        let f = try PatternFixture()
        let occ = try teachers(f, count: 3)
        let r = try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": .int(occ[2])]])
        try f.refresh()
        #expect(try !together(f, "t1", "t3"))
        try f.call("patterns/undoCorrection", ["owner": "o", "correctionId": r["correctionId"]!])
        try f.refresh()
        #expect(try together(f, "t1", "t3"))
        #expect(f.callError("patterns/undoCorrection", ["owner": "o", "correctionId": r["correctionId"]!])?.code == .notFound)
        #expect(try f.call("patterns/corrections", ["owner": "o"])["corrections"]?.arrayValue?.first?["undone"] == true)
    }

    @Test func undoingASplitBringsTheMembersBackInOneTransaction() throws {
        let f = try PatternFixture()
        let occ = try teachers(f)
        let r = try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "split", "groupId": 1, "moveOut": [.int(occ[2]), .int(occ[3])]]])
        #expect(try f.groupRecords() == [1: ["t1", "t2"], 2: ["t3", "t4"]])
        let u = try f.call("patterns/undoCorrection", ["owner": "o", "correctionId": r["correctionId"]!])
        #expect(u["affectedGroups"] == [1, 2])
        #expect(try f.groupRecords()[1] == ["t1", "t2", "t3", "t4"])
        let members = try #require(try f.group(1)["members"]?.arrayValue)
        #expect(members.allSatisfy { $0["source"] == "automatic" })
        // The refresh that follows keeps them together: the split no longer constrains anything.
        try f.refresh()
        #expect(try f.groupRecords()[1] == ["t1", "t2", "t3", "t4"])
    }

    @Test func badCorrectionsNameTheField() throws {
        let f = try PatternFixture()
        _ = try teachers(f, count: 3)
        #expect(f.callError("patterns/correct", ["owner": "o"])?.data?["field"] == "correction")
        #expect(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "nope", "groupId": 1]])?.data?["field"] == "correction.kind")
        #expect(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1]])?.data?["field"] == "correction.occurrenceId")
        #expect(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "split", "groupId": 1, "moveOut": ["x"]]])?.data?["field"] == "correction.moveOut[0]")
        #expect(f.callError("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 9, "occurrenceId": 1]])?.code == .notFound)
        #expect(f.callError("patterns/correct", ["owner": "other", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": 1]])?.code == .notFound)
    }
}
