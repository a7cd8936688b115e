import Testing
import KindredCore
import JSONRPC
import Storage
@testable import Service

@Suite struct UnchangedRecordTests {
    /// Re-sending a record exactly as stored writes nothing: no occurrence, log entry or pattern
    /// revision changes, even when its passages are occurrences.
    @Test func anUnchangedRecordWithPassageOccurrencesChangesNothing() throws {
        let f = try PatternFixture(passages: true)
        let text = (1...40).map { "Sentence number \($0) of a long entry about the station and the train." }.joined(separator: " ")
        let record: JSONValue = ["id": "r1", "revision": 1, "text": .string(text), "tags": ["x"]]
        try f.call("records/upsert", ["owner": "o", "records": [record]])
        let refreshed = try f.refresh()
        #expect(refreshed["passageOccurrences"]?.intValue ?? 0 > 1)
        let db = try RecordStore(readerFor: f.path).database
        func snapshot() throws -> [Int64] {
            [try db.scalarInt("SELECT count(*) FROM occurrences") ?? -1,
             try db.scalarInt("SELECT coalesce(max(seq), 0) FROM pattern_input_log") ?? -1,
             try db.scalarInt("SELECT coalesce(sum(revision), 0) FROM pattern_revisions") ?? -1,
             try db.scalarInt("SELECT coalesce(sum(record_revision), 0) FROM occurrences") ?? -1]
        }
        let before = try snapshot()
        #expect(before[0] > 1)
        let again = try f.call("records/upsert", ["owner": "o", "records": [record, ["id": "r2", "revision": 1, "text": "new"]]])
        #expect(again["results"]?.arrayValue?.map { $0["status"]!.stringValue! } == ["unchanged", "created"])
        #expect(try snapshot() == before)
        // The same revision with canonically equivalent but different text is a conflict, and changes nothing.
        let nfd: JSONValue = ["id": "r1", "revision": 1, "text": .string(text + " Cafe\u{301}.")]
        let nfc: JSONValue = ["id": "r3", "revision": 1, "text": "Café."]
        try f.call("records/upsert", ["owner": "o", "records": [nfc]])
        let conflict = try f.call("records/upsert", ["owner": "o", "records": [nfd, ["id": "r3", "revision": 1, "text": "Cafe\u{301}."]]])
        #expect(conflict["results"]?.arrayValue?.map { $0["status"]!.stringValue! } == ["conflict", "conflict"])
        let stored = try f.call("records/get", ["owner": "o", "id": "r1"])
        #expect(stored["record"]?["text"]?.stringValue?.utf8.elementsEqual(text.utf8) == true)
        // A new revision with the same text keeps the occurrences, moved to it.
        let moved = try f.call("records/upsert", ["owner": "o", "records": [["id": "r1", "revision": 2, "text": .string(text)]]])
        #expect(moved["results"]?.arrayValue?.first?["status"] == "updated")
        #expect(try db.scalarInt("SELECT count(*) FROM occurrences o JOIN records r ON r.rowid = o.record WHERE r.id = 'r1' AND o.record_revision = 2") == before[0])
    }
}
