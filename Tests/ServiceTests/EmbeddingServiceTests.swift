import Foundation
import Testing
import KindredCore
import JSONRPC
@testable import Service
import Synchronization

@Suite struct EmbeddingServiceTests {
    @Test func recordsWithoutVectorsWaitThenBecomeSearchable() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("o", [rec("a", text: "aaaa"), rec("b", text: "bbbb"), rec("h", text: "hhhh")])
        #expect(try f.call("index/status", ["owner": "o"])["pendingEmbeddings"] == 3)
        #expect(try f.service.embedPending() == 3)
        #expect(try f.call("index/status", ["owner": "o"])["pendingEmbeddings"] == 0)
        let hits = try f.call("search/query", ["owner": "o", "text": "bb", "mode": "semantic", "limit": 1])
        #expect(hits["results"]?[0]?["id"] == "b")
        #expect(hits["mode"] == "semantic")
    }

    /// In serve mode embedding runs on a background queue; an upsert with a workDoneToken gets
    /// `$/progress` until its records are embedded.
    @Test func backgroundEmbeddingReportsProgressToTheUpsert() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        f.service.startBackgroundEmbedding { _ in }
        let events = Mutex<[String]>([])
        let ctx = RequestContext(id: 1, method: "records/upsert", workDoneToken: "up") { method, params in
            if method == "$/progress", let kind = params["value"]?["kind"]?.stringValue { events.withLock { $0.append(kind) } }
        }
        let records: [JSONValue] = (0..<200).map { (i: Int) in rec("r\(i)", text: "record number \(i)") }
        _ = try f.service.call("records/upsert", ["owner": "o", "records": .array(records), "workDoneToken": "up"], context: ctx)
        let deadline = ContinuousClock.now + .seconds(30)
        while events.withLock({ $0.last }) != "end" && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let kinds = events.withLock { $0 }
        #expect(kinds.first == "begin")
        #expect(kinds.last == "end")
        #expect(try f.call("index/status", ["owner": "o"])["indexed"] == 200)
    }

    @Test func editingTextReplacesTheVector() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("o", [rec("x", text: "aaaa"), rec("y", text: "cccc")])
        _ = try f.service.embedPending()
        _ = try f.upsert("o", [rec("x", rev: 2, text: "dddd")])
        // The old vector left the index with the old text.
        #expect(try f.call("records/get", ["owner": "o", "id": "x"])["indexed"] == false)
        _ = try f.service.embedPending()
        let hits = try f.call("search/query", ["owner": "o", "text": "dd", "mode": "semantic", "limit": 1])
        #expect(hits["results"]?[0]?["id"] == "x")
        // Changing only metadata keeps the vector.
        _ = try f.upsert("o", [rec("x", rev: 3, text: "dddd", extra: ["tags": ["t"]])])
        #expect(try f.call("records/get", ["owner": "o", "id": "x"])["indexed"] == true)
    }

    @Test func withoutAModelHybridDegradesAndSemanticSaysHowToInstall() throws {
        let f = try ServiceFixture(embedder: nil)
        _ = try f.upsert("o", [rec("t", text: "missed the train"), rec("w", text: "a walk")])
        let hybrid = try f.call("search/query", ["owner": "o", "text": "train"])
        #expect(hybrid["mode"] == "keyword")
        #expect(hybrid["degraded"]?["reason"]?.stringValue?.isEmpty == false)
        #expect(hybrid["results"]?[0]?["id"] == "t")
        let e = try #require(f.callError("search/query", ["owner": "o", "text": "train", "mode": "semantic"]))
        #expect(e.code == .embedderUnavailable)
        #expect(f.callError("index/rebuild", [:])?.code == .embedderUnavailable)
        // Records wait for embedding instead of being lost.
        #expect(try f.call("index/status", ["owner": "o"])["records"] == 2)
    }

    @Test func rebuildReembedsEverythingWithProgress() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("o", (0..<40).map { (i: Int) in rec("r\(i)", text: String(repeating: "abcdefgh".map(String.init)[i % 8], count: 3)) })
        _ = try f.upsert("o", [rec("client", axis: 2)])
        _ = try f.service.embedPending()
        let events = Mutex<[JSONValue]>([])
        let ctx = RequestContext(id: 1, method: "index/rebuild", workDoneToken: "tok") { method, params in
            if method == "$/progress" { events.withLock { $0.append(params) } }
        }
        let result = try f.service.call("index/rebuild", ["workDoneToken": "tok"], context: ctx)
        #expect(result["reembedded"] == 40)
        #expect(result["pending"] == 0)
        let kinds = events.withLock { $0 }.compactMap { $0["value"]?["kind"]?.stringValue }
        #expect(kinds.first == "begin")
        #expect(kinds.last == "end")
        #expect(try f.call("index/status", ["owner": "o"])["indexed"] == 41)
    }

    /// Re-indexing replaces vectors in place: a cancelled rebuild leaves every record searchable.
    @Test func cancelledRebuildKeepsEveryRecordSearchable() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("o", (0..<100).map { (i: Int) in rec("r\(i)", text: "text \(i)") })
        _ = try f.service.embedPending()
        let token = CancellationToken()
        let ctx = RequestContext(id: 1, method: "index/rebuild", token: token, workDoneToken: "t") { _, params in
            if params["value"]?["kind"] == "report" { token.cancel() }
        }
        #expect(throws: ResponseError.cancelled) { try f.service.call("index/rebuild", [:], context: ctx) }
        let status = try f.call("index/status", ["owner": "o"])
        #expect(status["pendingEmbeddings"] == 0)
        #expect(status["indexed"] == 100)
        #expect(status["records"] == 100)
    }
}

/// The real all-MiniLM-L6-v2 behind the service: natural-language search with no client vectors.
@Suite struct RealModelSearchTests {
    @Test func findsTheTrainDreamByMeaning() throws {
        var config = Config()
        try config.set("embedder.provider", .string("local"))
        let (embedder, problem) = EmbedderSetup.make(config)
        let model = try #require(embedder, "the model must be installed (bash scripts/fetch-model.sh): \(problem ?? "")")
        let f = try ServiceFixture(embedder: model, dimension: 384)
        _ = try f.upsert("me", [
            rec("d1", text: "I was running down the platform but the doors closed and the train pulled away without me.", extra: ["kind": "dream"]),
            rec("d2", text: "My grandmother was cooking soup in a kitchen that kept getting bigger.", extra: ["kind": "dream"]),
            rec("d3", text: "I sat happily at the station with a coffee, watching people.", extra: ["kind": "dream"]),
            rec("n1", text: "Bought groceries and paid the electricity bill.", extra: ["kind": "note"]),
        ])
        #expect(try f.service.embedPending() == 4)
        let hits = try f.call("search/query", ["owner": "me", "text": "the dream where I kept missing a train", "mode": "semantic", "limit": 4])
        let ids = hits["results"]!.arrayValue!.map { $0["id"]!.stringValue! }
        #expect(ids.first == "d1")
        #expect(ids.last == "n1" || ids.last == "d2")
        let hybrid = try f.call("search/query", ["owner": "me", "text": "missing a train", "filters": ["kinds": ["dream"]]])
        #expect(hybrid["mode"] == "hybrid")
        #expect(hybrid["results"]?[0]?["id"] == "d1")
        #expect(!hybrid["results"]!.arrayValue!.contains { $0["id"] == "n1" })
    }
}
