import Foundation
import Testing
import KindredCore
import JSONRPC
@testable import Service

/// The DreamLog examples, with the real all-MiniLM-L6-v2 and the shipped thresholds.
@Suite struct RealModelPatternTests {
    static func fixture() throws -> ServiceFixture {
        var config = Config()
        try config.set("embedder.provider", .string("local"))
        let (embedder, problem) = EmbedderSetup.make(config)
        let model = try #require(embedder, "the model must be installed (bash scripts/fetch-model.sh): \(problem ?? "")")
        return try ServiceFixture(embedder: model, dimension: 384)
    }

    func put(_ f: ServiceFixture, _ id: String, text: String, category: String, description: String, excerpt: String, date: String) throws {
        _ = try f.upsert("me", [rec(id, text: text, extra: ["kind": "dream", "date": .string(date)])])
        let r = try f.call("occurrences/put", ["owner": "me", "recordId": .string(id), "revision": 1, "occurrences": [
            ["category": .string(category), "description": .string(description), "excerpt": .string(excerpt)],
        ]])
        #expect(r["accepted"] == 1, "occurrence of \(id) was not accepted: \(r)")
    }

    func groups(_ f: ServiceFixture) throws -> [[String]] {
        let findings = try f.call("patterns/findings", ["owner": "me", "includeRelated": true])["findings"]!.arrayValue!
        return findings.map { $0["evidence"]!.arrayValue!.map { $0["recordId"]!.stringValue! }.sorted() }
    }

    @Test func paraphrasesOfMissingATrainRecurWhileHappyWaitingStaysOut() throws {
        let f = try Self.fixture()
        try put(f, "d1", text: "I was at the station and kept missing the train, every time.", category: "situation",
                description: "missing a train", excerpt: "kept missing the train", date: "2025-03-01")
        try put(f, "d2", text: "The train pulled away without me while I ran down the platform.", category: "situation",
                description: "the train leaving without me", excerpt: "The train pulled away without me", date: "2025-03-09")
        try put(f, "d3", text: "Again I missed my train and watched it disappear.", category: "situation",
                description: "missed my train", excerpt: "I missed my train", date: "2025-04-02")
        try put(f, "d4", text: "I sat happily waiting at a station with a coffee.", category: "situation",
                description: "happily waiting at a station", excerpt: "happily waiting at a station", date: "2025-04-10")
        _ = try f.call("patterns/refresh", ["owner": "me"])
        let findings = try f.call("patterns/findings", ["owner": "me", "includeRelated": true])
        let recurring = findings["findings"]!.arrayValue!.filter { $0["kind"] == "recurring" }
        #expect(recurring.count == 1)
        let evidence = recurring.first?["evidence"]?.arrayValue?.map { $0["recordId"]!.stringValue! }.sorted()
        #expect(evidence == ["d1", "d2", "d3"])
        #expect(recurring.first?["records"] == 3)
        #expect(try groups(f).allSatisfy { !$0.contains("d4") })
        // A second refresh changes nothing.
        let again = try f.call("patterns/refresh", ["owner": "me"])
        #expect(again["groupsCreated"] == 0)
        #expect(again["groupsChanged"] == 0)
    }

    @Test func twoUnnamedTeachersStayApartOnceTheUserSplitsThem() throws {
        let f = try Self.fixture()
        try put(f, "t1", text: "My old teacher was grading papers in an empty classroom.", category: "person",
                description: "a teacher", excerpt: "My old teacher", date: "2025-05-01")
        try put(f, "t2", text: "An unfamiliar teacher asked me a question I could not answer.", category: "person",
                description: "an unfamiliar teacher", excerpt: "An unfamiliar teacher", date: "2025-05-04")
        _ = try f.call("patterns/refresh", ["owner": "me"])
        let related = try f.call("patterns/findings", ["owner": "me", "includeRelated": true])["findings"]!.arrayValue!
        let group = try #require(related.first { $0["category"] == "person" })
        #expect(group["evidence"]?.arrayValue?.count == 2)
        let groupID = try #require(group["groupId"])
        let moveOut = try #require(group["evidence"]?.arrayValue?.first { $0["recordId"] == "t2" }?["occurrenceId"])
        _ = try f.call("patterns/correct", ["owner": "me", "correction": ["kind": "split", "groupId": groupID, "moveOut": [moveOut], "note": "not the same teacher"]])
        _ = try f.call("patterns/refresh", ["owner": "me"])
        func together() throws -> Bool { try groups(f).contains { $0.contains("t1") && $0.contains("t2") } }
        #expect(try !together())
        // Edits and new teachers never bring the two back together.
        _ = try f.upsert("me", [rec("t2", rev: 2, text: "An unfamiliar teacher asked me a question I could not answer at all.",
                                    extra: ["kind": "dream", "date": "2025-05-04"])])
        _ = try f.call("occurrences/put", ["owner": "me", "recordId": "t2", "revision": 2, "occurrences": [
            ["category": "person", "description": "an unfamiliar teacher", "excerpt": "An unfamiliar teacher"],
        ]])
        try put(f, "t3", text: "A teacher stood at the blackboard.", category: "person",
                description: "a teacher at the blackboard", excerpt: "A teacher", date: "2025-05-09")
        _ = try f.call("patterns/refresh", ["owner": "me"])
        #expect(try !together())
        _ = try f.call("patterns/rebuild", ["owner": "me"])
        #expect(try !together())
    }
}
