import Testing
import KindredCore
import JSONRPC
@testable import Service

@Suite struct RecordMethodTests {
    @Test func upsertReportsEveryStatus() throws {
        let f = try ServiceFixture()
        #expect(try f.upsert("o", [rec("a", rev: 2, text: "x", axis: 0)]) == ["created"])
        #expect(try f.upsert("o", [rec("a", rev: 2, text: "x"), rec("a2", text: "y")]) == ["unchanged", "created"])
        #expect(try f.upsert("o", [rec("a", rev: 1, text: "older")]) == ["stale"])
        #expect(try f.upsert("o", [rec("a", rev: 2, text: "other")]) == ["conflict"])
        #expect(try f.upsert("o", [rec("a", rev: 3, text: "newer", axis: 1)]) == ["updated"])
        let got = try f.call("records/get", ["owner": "o", "id": "a"])
        #expect(got["record"]?["text"] == "newer")
        #expect(got["indexed"] == true)
    }

    @Test(arguments: [
        (rec("a", extra: ["revision": 0]), "records[1].revision"),
        (rec("a", extra: ["revision": 1.5]), "records[1].revision"),
        (.object(["id": "a", "revision": 1]), "records[1].text"),
        (.object(["revision": 1, "text": "t"]), "records[1].id"),
        (rec("a", extra: ["vector": [1, 2, 3]]), "records[1].vector"),
        (rec("a", extra: ["vector": .array((0..<8).map { $0 == 3 ? .double(.nan) : .double(0.5) })]), "records[1].vector[3]"),
        (rec("a", extra: ["vector": .array((0..<8).map { $0 == 2 ? "x" : .double(0.5) })]), "records[1].vector[2]"),
        (rec("a", extra: ["date": "yesterday"]), "records[1].date"),
        (rec("a", extra: ["tags": [1]]), "records[1].tags[0]"),
        (rec("a", extra: ["metadata": ["nested": ["x": 1]]]), "records[1].metadata.nested"),
        (rec("a", extra: ["colour": "red"]), "records[1].colour"),
        (rec("good"), "records[1].id"),
    ] as [(JSONValue, String)])
    func oneBadRecordRefusesTheWholeRequest(bad: JSONValue, field: String) throws {
        let f = try ServiceFixture()
        let e = try #require(f.callError("records/upsert", ["owner": "o", "records": [rec("good", axis: 1), bad, rec("other")]]))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == .string(field))
        #expect(e.data?["index"] == 1)
        #expect(f.callError("records/get", ["owner": "o", "id": "good"])?.code == .notFound)
        #expect(try f.call("index/status", ["owner": "o"])["records"] == 0)
    }

    @Test func missingOwnerAndWrongTypesNameTheField() throws {
        let f = try ServiceFixture()
        #expect(f.callError("records/upsert", ["records": []])?.data?["field"] == "owner")
        #expect(f.callError("records/upsert", ["owner": 5, "records": []])?.data?["field"] == "owner")
        #expect(f.callError("records/upsert", ["owner": "o"])?.data?["field"] == "records")
        #expect(f.callError("records/delete", ["owner": "o", "ids": "a"])?.data?["field"] == "ids")
        #expect(f.callError("search/query", ["owner": "o", "text": "x", "limit": 0])?.data?["field"] == "limit")
        #expect(f.callError("search/query", ["owner": "o", "text": "x", "limit": 100_000])?.code == .limitExceeded)
        #expect(f.callError("search/query", ["owner": "o", "text": "x", "mode": "fuzzy"])?.data?["field"] == "mode")
        #expect(f.callError("search/query", ["owner": "o", "text": "x", "filters": ["kind": ["a"]]])?.data?["field"] == "filters.kind")
        #expect(f.callError("search/query", ["owner": "o"])?.data?["field"] == "text")
    }

    @Test func deleteAndPermissionChangesLeaveSearchAtOnce() throws {
        let f = try ServiceFixture()
        _ = try f.upsert("o", (0..<8).map { (i: Int) in rec("r\(i)", axis: i) })
        #expect(try f.searchIDs("o", vector: axisVector(3), limit: 1) == ["r3"])
        let del = try f.call("records/delete", ["owner": "o", "ids": ["r3", "ghost"]])
        #expect(del["deleted"] == ["r3"])
        #expect(del["missing"] == ["ghost"])
        #expect(!(try f.searchIDs("o", vector: axisVector(3), limit: 8)).contains("r3"))
        _ = try f.call("records/setPermissions", ["owner": "o", "id": "r4", "permissions": ["search": false]])
        #expect(!(try f.searchIDs("o", vector: axisVector(4), limit: 8)).contains("r4"))
        #expect(try f.call("search/query", ["owner": "o", "text": "some", "mode": "keyword", "limit": 20])["results"]!.arrayValue!
            .allSatisfy { $0["id"] != "r4" && $0["id"] != "r3" })
        _ = try f.call("records/setPermissions", ["owner": "o", "id": "r4", "permissions": ["search": true]])
        #expect(try f.searchIDs("o", vector: axisVector(4), limit: 1) == ["r4"])
        #expect(f.callError("records/setPermissions", ["owner": "o", "id": "r3", "permissions": ["search": true]])?.code == .notFound)
    }

    @Test func recordsSurviveReopenAndTheIndexIsRebuilt() throws {
        let f = try ServiceFixture()
        _ = try f.upsert("o", (0..<8).map { (i: Int) in rec("r\(i)", axis: i) })
        _ = try f.call("records/setPermissions", ["owner": "o", "id": "r2", "permissions": ["search": false]])
        let again = try f.reopen()
        defer { again.close() }
        let hits = try again.call("search/query", ["owner": "o", "vector": .from(axisVector(5)), "mode": "semantic", "limit": 8])
        let ids = hits["results"]!.arrayValue!.map { $0["id"]!.stringValue! }
        #expect(ids.first == "r5")
        #expect(ids.count == 7)
        #expect(!ids.contains("r2"))
    }

    /// Two owners with interleaved random writes never see each other's records.
    @Test(arguments: [1, 2, 3])
    func ownersAreIsolatedUnderRandomWorkloads(seed: UInt64) throws {
        let f = try ServiceFixture()
        var rng = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((rng >> 33) % UInt64(n))
        }
        var live: [String: Set<String>] = ["alice": [], "bob": []]
        for step in 0..<300 {
            let owner = next(2) == 0 ? "alice" : "bob"
            let id = "r\(next(40))"
            if next(4) == 0 {
                let deleted = try f.call("records/delete", ["owner": .string(owner), "ids": [.string(id)]])["deleted"]!.arrayValue!
                #expect(deleted.isEmpty == !live[owner]!.contains(id))
                live[owner]!.remove(id)
            } else {
                _ = try f.call("records/upsert", ["owner": .string(owner), "records": [rec(id, rev: Int64(step + 1), text: "\(owner) secret \(id)", axis: next(8))]])
                live[owner]!.insert(id)
            }
        }
        for owner in ["alice", "bob"] {
            let other = owner == "alice" ? "bob" : "alice"
            let status = try f.call("index/status", ["owner": .string(owner)])
            #expect(status["records"] == .from(live[owner]!.count))
            #expect(status["indexed"] == .from(live[owner]!.count))
            for axis in 0..<8 {
                let ids = try f.searchIDs(owner, vector: axisVector(axis), limit: 100)
                #expect(Set(ids) == live[owner]!)
            }
            let kw = try f.call("search/query", ["owner": .string(owner), "text": "secret", "mode": "keyword", "limit": 100])
            for hit in kw["results"]!.arrayValue! {
                let text = try f.call("records/get", ["owner": .string(owner), "id": hit["id"]!])["record"]!["text"]!.stringValue!
                #expect(!text.contains(other))
            }
            for id in live[other]!.subtracting(live[owner]!) {
                #expect(f.callError("records/get", ["owner": .string(owner), "id": .string(id)])?.code == .notFound)
            }
        }
    }
}
