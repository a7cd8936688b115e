import Testing
import KindredCore
import JSONRPC
import Storage
@testable import Service
import Synchronization

@Suite struct PatternRefreshTests {
    @Test func refreshGroupsAndFindingsCountDistinctRecords() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)", date: "2024-05-0\(i)") }
        for i in 1...2 { try f.record("d\(i)", "dog \(i)", category: "animal", date: "2024-05-0\(i)") }
        let r = try f.refresh()
        #expect(r["groupsCreated"] == 2)
        #expect(r["pending"] == 0)
        let report = try f.findings()
        #expect(report["eligibleRecords"] == 5)
        #expect(report["insufficientHistory"] == false)
        let findings = try #require(report["findings"]?.arrayValue)
        #expect(findings.map { $0["kind"] } == ["recurring", "related"])
        for finding in findings {
            let evidence = try #require(finding["evidence"]?.arrayValue)
            #expect(finding["records"]?.intValue == Int64(evidence.count))
            #expect(Set(evidence.compactMap { $0["recordId"]?.stringValue }).count == evidence.count)
            #expect(finding["eligible"] == 5)
        }
        #expect(try f.findings(["includeRelated": false])["findings"]?.arrayValue?.count == 1)
        #expect(try f.findings(["category": "animal"])["findings"]?.arrayValue?.count == 1)
        // A period holds its own numerator and denominator.
        let may2 = try f.findings(["from": "2024-05-02", "to": "2024-05-03"])
        #expect(may2["eligibleRecords"] == 3)
        #expect(may2["findings"]?.arrayValue?.first?["records"] == 2)
        let status = try f.call("index/status", ["owner": "o"])["patterns"]
        #expect(status?["groups"] == 2)
        #expect(status?["occurrences"] == 5)
        // Another owner sees nothing.
        #expect(try f.findings(owner: "other")["findings"]?.arrayValue?.isEmpty == true)
    }

    @Test func refreshTwiceChangesNothing() throws {
        let f = try PatternFixture()
        for i in 1...4 { try f.record("t\(i)", "teacher \(i)") }
        for i in 1...3 { try f.record("d\(i)", "dog \(i)", category: "animal") }
        try f.refresh()
        let first = try f.patternRows()
        let again = try f.refresh()
        #expect(again["groupsCreated"] == 0)
        #expect(again["groupsChanged"] == 0)
        #expect(try f.patternRows() == first)
        try f.call("patterns/refresh", [:])  // all owners
        #expect(try f.patternRows() == first)
    }

    @Test func anOldRevisionsOccurrencesLeaveAtOnce() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        try f.refresh()
        let gid = try #require(try f.findings()["findings"]?.arrayValue?.first?["groupId"]?.intValue)
        // Same text at a new revision: the occurrence stays, now at revision 2.
        let text = try #require(try f.call("records/get", ["owner": "o", "id": "t3"])["record"]?["text"]?.stringValue)
        try f.upsert("t3", rev: 2, text: text)
        #expect(try f.findings()["findings"]?.arrayValue?.first?["evidence"]?.arrayValue?.last?["revision"] == 2)
        // Changed text: it leaves at once, before any refresh.
        try f.upsert("t3", rev: 3, text: "something else entirely")
        let g = try f.group(gid)
        #expect(g["records"] == 2)
        #expect(try f.findings()["findings"]?.arrayValue?.first?["kind"] == "related")
        #expect(try f.findings()["eligibleRecords"] == 2)
        // The new revision's occurrences are grouped by the next refresh.
        try f.upsert("t3", rev: 4, text: "I met teacher 3 again")
        try f.put("t3", rev: 4, [("person", "teacher 3", "teacher 3")])
        try f.refresh()
        #expect(try f.group(gid)["records"] == 3)
    }

    @Test func deleteAndPermissionOffRemoveEvidenceCountsAndLabelAtOnce() throws {
        let f = try PatternFixture()
        for i in 1...4 { try f.record("t\(i)", "teacher \(i)") }
        try f.refresh()
        let finding = try #require(try f.findings()["findings"]?.arrayValue?.first)
        let gid = try #require(finding["groupId"]?.intValue)
        try f.call("patterns/setLabel", ["owner": "o", "groupId": .int(gid), "version": finding["version"]!, "label": "The teacher", "description": "school"])
        #expect(try f.findings()["findings"]?.arrayValue?.first?["label"] == "The teacher")

        try f.call("records/delete", ["owner": "o", "ids": ["t1"]])
        var now = try #require(try f.findings()["findings"]?.arrayValue?.first)
        #expect(now["records"] == 3)
        #expect(now["eligible"] == 3)
        #expect(now["label"] == nil)
        #expect(now["evidence"]?.arrayValue?.contains { $0["recordId"] == "t1" } == false)

        try f.call("records/setPermissions", ["owner": "o", "id": "t2", "permissions": ["patterns": false]])
        now = try #require(try f.findings()["findings"]?.arrayValue?.first)
        #expect(now["kind"] == "related")
        #expect(now["eligible"] == 2)
        try f.call("records/setPermissions", ["owner": "o", "id": "t3", "permissions": ["patterns": false]])
        #expect(try f.findings()["findings"]?.arrayValue?.isEmpty == true)
        #expect(try f.group(gid)["state"] == "dormant")

        // Permission back on: the next refresh brings the occurrence back.
        try f.call("records/setPermissions", ["owner": "o", "id": "t2", "permissions": ["patterns": true]])
        try f.refresh()
        #expect(try f.group(gid)["state"] == "active")
        #expect(try f.groupRecords()[gid] == ["t2", "t4"])
    }

    @Test func setLabelRefusesAStaleVersion() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        try f.refresh()
        let g = try f.group(1)
        let version = try #require(g["version"]?.intValue)
        let stale = try #require(f.callError("patterns/setLabel", ["owner": "o", "groupId": 1, "version": .int(version - 1), "label": "x"]))
        #expect(stale.code == .staleGroupVersion)
        #expect(stale.data?["currentVersion"]?.intValue == version)
        #expect(f.callError("patterns/setLabel", ["owner": "o", "groupId": 99, "version": 1, "label": "x"])?.code == .notFound)
        #expect(f.callError("patterns/setLabel", ["owner": "o", "groupId": 1, "version": .int(version)])?.data?["field"] == "label")
        try f.call("patterns/setLabel", ["owner": "o", "groupId": 1, "version": .int(version), "label": "Mr Brown"])
        #expect(try f.group(1)["label"] == "Mr Brown")
    }

    @Test func stateSurvivesReopening() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        try f.refresh()
        let before = try f.findings()
        let rows = try f.patternRows()
        try f.reopen()
        #expect(try f.findings() == before)
        try f.refresh()
        #expect(try f.patternRows() == rows)
    }

    @Test func cancelledRefreshLeavesStoredStateUntouched() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        for i in 1...3 { try f.record("d\(i)", "dog \(i)", category: "animal") }
        let before = try f.patternRows()
        let token = CancellationToken()
        // Cancel as soon as the engine reports progress on its first category.
        let ctx = RequestContext(id: 1, method: "patterns/refresh", token: token, workDoneToken: "w") { _, params in
            if let pct = params["value"]?["percentage"]?.intValue, pct > 10 { token.cancel() }
        }
        let e = f.callError("patterns/refresh", ["owner": "o"], context: ctx)
        #expect(e?.code == .requestCancelled)
        #expect(try f.patternRows() == before)
        #expect(try f.refresh()["groupsCreated"] == 2)
    }

    @Test func progressIsReported() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        let seen = Mutex<[String]>([])
        let ctx = RequestContext(id: 1, method: "patterns/refresh", workDoneToken: "w") { method, params in
            if method == "$/progress", let kind = params["value"]?["kind"]?.stringValue { seen.withLock { $0.append(kind) } }
        }
        try f.call("patterns/refresh", ["owner": "o"], context: ctx)
        let kinds = seen.withLock { $0 }
        #expect(kinds.first == "begin")
        #expect(kinds.last == "end")
        #expect(kinds.contains("report"))
    }

    @Test func aNewModelRegroupsWithItsVectorsAndKeepsTheCorrections() throws {
        let f = try PatternFixture()
        let ids = try (1...4).map { try f.record("t\($0)", "teacher \($0)") }
        try f.refresh()
        #expect(try f.groupRecords()[1] == ["t1", "t2", "t3", "t4"])
        let d = try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "groupId": 1, "occurrenceId": .int(ids[1])]])
        #expect(d["affectedGroups"] == [1])
        func storedVersion() throws -> String? {
            try RecordStore(readerFor: f.path).database.query("SELECT index_version FROM pattern_state WHERE owner = 'o'") { $0.text(0) }.first ?? nil
        }
        #expect(try storedVersion() == "table@8")
        // Another model of the same dimension puts teachers 3 and 4 somewhere else entirely: the
        // occurrences keep their ids but get new vectors, so the groups are rebuilt from them.
        var table = Theme.table
        table["teacher 3"] = Theme.vector(3, [6])
        table["teacher 4"] = Theme.vector(3, [7])
        try f.reopen(embedder: TableEmbedder(modelID: "table-2", table: table))
        let r = try f.refresh()
        #expect(r["vectorsComputed"] == 4)
        #expect(try storedVersion() == "table-2@8")
        let groups = try f.groupRecords()
        #expect(groups.values.contains(["t3", "t4"]))
        // The dismissal still keeps t2 out of t1's group.
        #expect(!groups.values.contains { $0.contains("t1") && $0.contains("t2") })
        // The next refresh has nothing to do.
        let again = try f.refresh()
        #expect(again["groupsChanged"] == 0 && again["groupsCreated"] == 0)
    }
}
