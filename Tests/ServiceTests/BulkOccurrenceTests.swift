import Foundation
import Testing
import KindredCore
import JSONRPC
import Storage
import KindredProtocol
@testable import Service

/// An embedder that counts its calls, over the theme table.
final class CountingEmbedder: TextEmbedder, @unchecked Sendable {
    let inner = TableEmbedder(table: Theme.table)
    var modelID: String { inner.modelID }
    var dimension: Int { inner.dimension }
    private(set) var calls = 0
    private(set) var texts = 0

    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        calls += 1
        self.texts += texts.count
        return try inner.embed(texts, isCancelled: isCancelled)
    }
}

extension PatternFixture {
    func occurrenceCount() throws -> Int64 {
        try RecordStore(readerFor: path).database.query("SELECT count(*) FROM occurrences", []) { $0.int(0) }[0]
    }
}

/// `occurrences/put` with `items`: many records in one call, validated per item, one transaction,
/// one embedder batch, a result per item.
@Suite struct BulkOccurrenceTests {
    static func item(_ id: String, rev: Int64 = 1, _ descriptions: [String]) -> JSONValue {
        ["recordId": .string(id), "revision": .int(rev),
         "occurrences": .array(descriptions.map { ["category": "person", "description": .string($0), "excerpt": .string($0)] })]
    }

    static func texts(_ f: PatternFixture) throws {
        for i in 1...6 { try f.upsert("r\(i)", text: "Entry r\(i): I met someone, teacher \(i), at school.") }
    }

    @Test func manyRecordsInOneCallGroupExactlyAsOneCallPerRecord() throws {
        let bulk = try PatternFixture(), single = try PatternFixture()
        try Self.texts(bulk)
        try Self.texts(single)
        let r = try bulk.call("occurrences/put", ["owner": "o", "items": .array((1...6).map { Self.item("r\($0)", ["teacher \($0)"]) })])
        for i in 1...6 { try single.put("r\(i)", [("person", "teacher \(i)", "teacher \(i)")]) }
        #expect(r["written"] == 6)
        #expect(r["failed"] == 0)
        #expect(r["accepted"] == 6)
        #expect(r["vectors"] == "stored")
        let items = try #require(r["items"]?.arrayValue)
        #expect(items.map { $0["recordId"]?.stringValue } == (1...6).map { "r\($0)" })
        #expect(items.allSatisfy { $0["accepted"] == 1 && $0["occurrences"]?.arrayValue?.count == 1 })
        #expect(try bulk.refresh()["groupsCreated"] == 1)
        #expect(try single.refresh()["groupsCreated"] == 1)
        #expect(try bulk.groupRecords() == single.groupRecords())
        #expect(try bulk.groupRecords().values.first == Set((1...6).map { "r\($0)" }))
    }

    @Test func allDescriptionsGoToTheEmbedderInOneBatch() throws {
        let counter = CountingEmbedder()
        let f = try PatternFixture(embedder: counter)
        try Self.texts(f)
        let before = counter.calls
        try f.call("occurrences/put", ["owner": "o", "items": .array((1...6).map { Self.item("r\($0)", ["teacher \($0)"]) })])
        #expect(counter.calls == before + 1)
        #expect(counter.texts >= 6)
    }

    @Test func aMissingOrStaleRecordFailsAloneAndTheOthersAreWritten() throws {
        let f = try PatternFixture()
        try Self.texts(f)
        try f.upsert("r2", rev: 2, text: "Entry r2: I met someone, teacher 2, at school.")
        let r = try f.call("occurrences/put", ["owner": "o", "items": [
            Self.item("r1", ["teacher 1"]), Self.item("ghost", ["teacher 9"]), Self.item("r2", rev: 1, ["teacher 2"]),
            Self.item("r3", ["teacher 3", "not in the text"]),
        ]])
        #expect(r["written"] == 2)
        #expect(r["failed"] == 2)
        #expect(r["accepted"] == 2)
        let items = try #require(r["items"]?.arrayValue)
        #expect(items[0]["accepted"] == 1)
        #expect(items[1]["recordId"] == "ghost")
        #expect(items[1]["error"]?["code"] == .int(Int64(ErrorCode.notFound.rawValue)))
        #expect(items[2]["error"]?["code"] == .int(Int64(ErrorCode.revisionConflict.rawValue)))
        #expect(items[2]["error"]?["data"]?["currentRevision"] == 2)
        #expect(items[3]["accepted"] == 1)
        #expect(items[3]["rejected"]?.arrayValue?.first?["field"] == "occurrences[1].excerpt")
        #expect(try f.occurrenceCount() == 2)
    }

    @Test func aBulkPutReplacesEachRecordsOccurrences() throws {
        let f = try PatternFixture()
        try Self.texts(f)
        try f.put("r1", [("person", "teacher 1", "teacher 1"), ("person", "x", "school")])
        for i in 2...4 { try f.put("r\(i)", [("person", "teacher \(i)", "teacher \(i)")]) }
        #expect(try f.refresh()["groupsCreated"] == 1)
        let r = try f.call("occurrences/put", ["owner": "o", "items": [Self.item("r1", ["teacher 1"]), Self.item("r2", [])]])
        #expect(r["written"] == 2)
        #expect(try f.occurrenceCount() == 3)
        try f.refresh()
        let members = try f.groupRecords().values.filter { $0.count >= 2 }
        #expect(members == [["r1", "r3", "r4"]])
    }

    @Test func fieldsAreNamedByTheirPathInItems() throws {
        let f = try PatternFixture()
        try Self.texts(f)
        func field(_ params: JSONValue) -> String? { f.callError("occurrences/put", params)?.data?["field"]?.stringValue }
        #expect(field(["owner": "o", "items": [Self.item("r1", ["teacher 1"]), Self.item("r1", ["teacher 1"])]]) == "items[1].recordId")
        #expect(field(["owner": "o", "items": [Self.item("r1", ["teacher 1"])], "recordId": "r1"]) == "recordId")
        #expect(field(["owner": "o", "items": []]) == "items")
        #expect(field(["owner": "o", "items": [["recordId": "r1", "revision": 1, "occurrences": [["category": "p", "excerpt": "e"]]]]])
                == "items[0].occurrences[0].description")
        #expect(field(["owner": "o", "items": [["recordId": "r1", "revision": 1, "occurrences": [], "colour": 1]]]) == "items[0].colour")
        #expect(field(["owner": "o", "items": [["recordId": "r1", "occurrences": []]]]) == "items[0].revision")
        #expect(field(["owner": "o", "items": ["r1"]]) == "items[0]")
        let many: [JSONValue] = (0...OccurrencesPut.maxItems).map { Self.item("x\($0)", []) }
        #expect(f.callError("occurrences/put", ["owner": "o", "items": .array(many)])?.code == .limitExceeded)
        // Nothing was written by any refused call.
        #expect(try f.occurrenceCount() == 0)
    }
}
