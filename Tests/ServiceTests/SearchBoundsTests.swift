import Foundation
import Testing
import KindredCore
import JSONRPC
import Storage
@testable import Service

@Suite struct SearchBoundsTests {
    func ids(_ r: JSONValue) -> [String] { r["results"]!.arrayValue!.map { $0["id"]!.stringValue! } }

    @Test func aLongQueryIsCutAndTheAnswerSaysSo() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("o", [rec("a", text: "the harbour cranes at dawn"), rec("b", text: "a walk in the park")])
        let words = (0..<20_000).map { "w\($0)" }.joined(separator: " ")
        let text = "harbour cranes " + words  // about 110 000 characters
        for mode in ["keyword", "hybrid", "semantic"] {
            let r = try f.call("search/query", ["owner": "o", "text": .string(text), "mode": .string(mode)])
            let notes = (r["notes"]?.arrayValue ?? []).compactMap(\.stringValue)
            #expect(notes.first?.hasPrefix("query text cut to ") == true)
            #expect(notes.first?.contains("(search.maxQueryChars is 2000)") == true)
            #expect(notes.contains { $0.contains("search.maxKeywordTerms") } == (mode != "semantic"))
            if mode != "semantic" { #expect(ids(r).first == "a") }
        }
        let short = try f.call("search/query", ["owner": "o", "text": "harbour", "mode": "keyword"])
        #expect(short["notes"] == nil)
        #expect(ids(short) == ["a"])
    }

    @Test func theLimitsComeFromConfig() throws {
        let dir = TempDir()
        var config = Config()
        try config.set("index.dimension", .int(8))
        try config.set("search.maxQueryChars", .int(12))
        try config.set("search.maxKeywordTerms", .int(1))
        let service = try KindredService(config: config, databasePath: dir.path("k.sqlite"), embedder: nil)
        defer { service.close() }
        _ = try service.call("records/upsert", ["owner": "o", "records": [rec("a", text: "cranes"), rec("b", text: "harbour"), rec("c", text: "dawn")]])
        let r = try service.call("search/query", ["owner": "o", "text": "harbour cranes dawn", "mode": "keyword"])
        // Cut to "harbour", a word boundary within 12 characters; one term is left anyway.
        #expect(ids(r) == ["b"])
        #expect(r["notes"]?.arrayValue?.first?.stringValue?.hasPrefix("query text cut to 7 of 19 characters") == true)
        let two = try service.call("search/query", ["owner": "o", "text": "dawn cranes", "mode": "keyword"])
        #expect(ids(two) == ["c"])
        #expect(two["notes"]?.arrayValue?.map(\.stringValue) == ["keyword search used the first 1 informative terms of 2 (search.maxKeywordTerms)"])
    }

    @Test func aQueryOfStopwordsOnlyLeavesTheKeywordListEmpty() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("o", [
            rec("a", text: "where could I have left the keys", axis: 0), rec("b", text: "the dream where I could fly", axis: 1),
            rec("c", text: "could I", axis: 2), rec("d", text: "nothing in common", axis: 3),
        ])
        let keyword = try f.call("search/query", ["owner": "o", "text": "where could I", "mode": "keyword"])
        #expect(ids(keyword).isEmpty)
        #expect(ids(try f.call("search/query", ["owner": "o", "text": "the", "mode": "keyword"])).isEmpty)
        // Hybrid is the semantic ranking alone.
        let hybrid = try f.call("search/query", ["owner": "o", "text": "where could I", "mode": "hybrid"])
        let semantic = try f.call("search/query", ["owner": "o", "text": "where could I", "mode": "semantic"])
        #expect(hybrid["mode"] == "hybrid")
        #expect(ids(hybrid) == ids(semantic))
        #expect(ids(hybrid).count == 4)
    }

    @Test func passagesAreFoundByStemmedTermsInLongRecords() throws {
        let f = try ServiceFixture(embedder: nil)
        let filler = String(repeating: "Rain on the windows again, nothing else to say. ", count: 10_000)
        let text = filler + "I was flying above the harbour cranes. " + filler
        _ = try f.upsert("o", [rec("long", text: text)])
        let r = try f.call("search/query", ["owner": "o", "text": "could I fly", "mode": "keyword"])
        let hit = try #require(r["results"]?.arrayValue?.first)
        #expect(hit["id"] == "long")
        let passage = try #require(hit["passage"]?["text"]?.stringValue)
        #expect(passage.contains("I was flying above the harbour cranes."))
        let start = Int(try #require(hit["passage"]?["start"]?.intValue))
        let end = Int(try #require(hit["passage"]?["end"]?.intValue))
        var v = String.UnicodeScalarView()
        v.append(contentsOf: Array(text.unicodeScalars)[start..<end])
        #expect(String(v) == passage)
    }
}

/// A temporary folder removed when the value goes away.
final class TempDir {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-bounds-\(UUID().uuidString)")
    init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
