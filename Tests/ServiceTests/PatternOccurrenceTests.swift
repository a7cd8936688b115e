import Testing
import KindredCore
import JSONRPC
@testable import Service

@Suite struct PatternOccurrenceTests {
    @Test func excerptsMatchAfterFoldingAndStoreTheOriginalSpan() throws {
        let f = try PatternFixture()
        let text = "My  teacher\tsaid: “Don’t be late.”\nThen I woke."
        try f.upsert("r1", text: text)
        let r = try f.call("occurrences/put", [
            "owner": "o", "recordId": "r1", "revision": 1,
            "occurrences": [
                ["category": "person", "description": "teacher 1", "excerpt": "TEACHER SAID: \"don't be late.\""],
                ["category": "person", "description": "teacher 2", "excerpt": " my teacher "],
                ["category": "action", "description": "teacher 3", "excerpt": "teacher shouted"],
                ["category": "action", "description": "teacher 4", "excerpt": "   "],
            ],
        ])
        #expect(r["accepted"] == 2)
        let accepted = try #require(r["occurrences"]?.arrayValue)
        #expect(accepted[0]["excerpt"] == "teacher\tsaid: “Don’t be late.”")
        #expect(accepted[0]["start"] == 4)
        #expect(accepted[0]["end"] == 34)
        #expect(accepted[1]["excerpt"] == "My  teacher")
        #expect(accepted[1]["start"] == 0)
        let rejected = try #require(r["rejected"]?.arrayValue)
        #expect(rejected.map { $0["index"] } == [2, 3])
        #expect(rejected[0]["reason"]?.stringValue?.contains("does not occur") == true)
        #expect(r["vectors"] == "stored")
    }

    @Test(arguments: [
        ("tëacher", "Der TËACHER kam", true),
        ("a b c", "a\n\n b \t c", true),
        ("‘quoted’", "it was 'QUOTED' there", true),
        ("teacher", "the teach er", false),
    ] as [(String, String, Bool)])
    func folding(excerpt: String, text: String, found: Bool) {
        #expect((ExcerptMatcher.find(excerpt, in: text) != nil) == found)
    }

    @Test func revisionMustBeCurrentAndFieldsAreNamed() throws {
        let f = try PatternFixture()
        try f.upsert("r1", rev: 2, text: "hello teacher")
        let stale = try #require(f.callError("occurrences/put", ["owner": "o", "recordId": "r1", "revision": 1, "occurrences": []]))
        #expect(stale.code == .revisionConflict)
        #expect(stale.data?["field"] == "revision")
        #expect(stale.data?["currentRevision"] == 2)
        #expect(f.callError("occurrences/put", ["owner": "o", "recordId": "ghost", "revision": 1, "occurrences": []])?.code == .notFound)
        #expect(f.callError("occurrences/put", ["owner": "x", "recordId": "r1", "revision": 2, "occurrences": []])?.code == .notFound)
        let bad = f.callError("occurrences/put", ["owner": "o", "recordId": "r1", "revision": 2, "occurrences": [["category": "p", "excerpt": "hello"]]])
        #expect(bad?.data?["field"] == "occurrences[0].description")
        let unknown = f.callError("occurrences/put", ["owner": "o", "recordId": "r1", "revision": 2,
                                                      "occurrences": [["category": "p", "description": "d", "excerpt": "hello", "colour": 1]]])
        #expect(unknown?.data?["field"] == "occurrences[0].colour")
    }

    @Test func withoutAnEmbedderOccurrencesWaitAndNoEvidenceIsInvented() throws {
        let f = try PatternFixture(embedder: nil)
        try f.upsert("r1", text: "teacher 1 here")
        let r = try f.call("occurrences/put", ["owner": "o", "recordId": "r1", "revision": 1,
                                               "occurrences": [["category": "person", "description": "teacher 1", "excerpt": "teacher 1"]]])
        #expect(r["vectors"] == "waiting")
        for i in 2...3 { try f.upsert("r\(i)", text: "teacher \(i) here"); try f.put("r\(i)", [("person", "teacher \(i)", "teacher \(i)")]) }
        let refreshed = try f.refresh()
        #expect(refreshed["groupsCreated"] == 0)
        #expect(refreshed["waitingForEmbedder"] == 3)
        #expect(try f.findings()["findings"]?.arrayValue?.isEmpty == true)
        #expect(try f.findings()["eligibleRecords"] == 0)
        // Once an embedder is there, the waiting occurrences are embedded and grouped.
        try f.reopen()
        #expect(try f.refresh()["groupsCreated"] == 1)
        #expect(try f.findings()["findings"]?.arrayValue?.first?["records"] == 3)
    }

    @Test func passagesStandInForRecordsWithoutOccurrences() throws {
        let f = try PatternFixture(passages: true)
        try f.upsert("a", text: "I missed the train.", date: "2024-05-01")
        try f.upsert("b", text: "The train left without me.", date: "2024-05-02")
        try f.upsert("c", text: "Again the train was gone.", date: "2024-05-03")
        let r = try f.refresh()
        #expect(r["passageOccurrences"] == 3)
        #expect(r["groupsCreated"] == 1)
        let finding = try #require(try f.findings()["findings"]?.arrayValue?.first)
        #expect(finding["category"] == "passage")
        #expect(finding["kind"] == "recurring")
        #expect(finding["evidence"]?.arrayValue?.map { $0["recordId"] } == ["a", "b", "c"])
        // A second refresh makes no new passages.
        #expect(try f.refresh()["passageOccurrences"] == 0)
    }
}
