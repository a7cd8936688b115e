import Foundation
import Testing
@testable import KindredCore

@Suite struct ConfigTests {
    @Test func environmentNames() {
        #expect(Config.environmentName("search.defaultLimit") == "KINDRED_SEARCH_DEFAULT_LIMIT")
        #expect(Config.environmentName("blas.threads") == "KINDRED_BLAS_THREADS")
    }

    @Test func environmentOverridesDefaults() throws {
        var c = Config()
        try c.apply(environment: ["KINDRED_SEARCH_DEFAULT_LIMIT": "25", "UNRELATED": "x"])
        #expect(c.int("search.defaultLimit") == 25)
        #expect(throws: ConfigError.self) { try c.apply(environment: ["KINDRED_SEARCH_MAX_LIMIT": "many"]) }
    }

    @Test func aFormerKeyNameIsReadAsTheCurrentOneInEveryLayer() throws {
        var c = Config()
        try c.apply(json: ["search": ["batchGemmThreshold": 3]])
        #expect(c.int("search.sharedScanQueries") == 3)
        #expect(c.values["search.batchGemmThreshold"] == nil)
        try c.apply(environment: ["KINDRED_SEARCH_BATCH_GEMM_THRESHOLD": "5"])
        #expect(c.int("search.sharedScanQueries") == 5)
        try c.set("search.batchGemmThreshold", text: "7")
        #expect(c.int("search.sharedScanQueries") == 7)
        #expect(Config.isKnown("search.batchGemmThreshold"))
        // The current name wins when both are given, in a file and in the environment.
        var both = Config()
        try both.apply(json: ["search": ["sharedScanQueries": 4, "batchGemmThreshold": 9]])
        #expect(both.int("search.sharedScanQueries") == 4)
        try both.apply(environment: ["KINDRED_SEARCH_SHARED_SCAN_QUERIES": "6", "KINDRED_SEARCH_BATCH_GEMM_THRESHOLD": "2"])
        #expect(both.int("search.sharedScanQueries") == 6)
        // A wrong type under the former name is refused under the current one.
        #expect(throws: ConfigError(key: "search.sharedScanQueries", reason: "expected a number, got string")) {
            try both.apply(json: ["search": ["batchGemmThreshold": "many"]])
        }
    }

    @Test func unknownKeysAndWrongTypesAreRefusedByName() throws {
        var c = Config()
        do {
            try c.apply(json: ["search": ["defaultLimt": 3]])
            Issue.record("unknown key accepted")
        } catch {
            #expect(error.key == "search.defaultLimt")
        }
        do {
            try c.apply(json: ["search": ["defaultLimit": "ten"]])
            Issue.record("wrong type accepted")
        } catch {
            #expect(error.key == "search.defaultLimit")
        }
    }

    /// The shipped config/kindred.json documents exactly the built-in defaults.
    @Test func shippedConfigMatchesDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try #require(FileManager.default.contents(atPath: root.appendingPathComponent("config/kindred.json").path))
        var fromFile = Config()
        try fromFile.apply(json: try JSONParser.parse([UInt8](data)))
        #expect(fromFile == Config())
        var keys = Set<String>()
        func walk(_ v: JSONValue, _ prefix: String) {
            guard case .object(let o) = v else { keys.insert(prefix); return }
            for (k, e) in o { walk(e, prefix.isEmpty ? k : prefix + "." + k) }
        }
        walk(try JSONParser.parse([UInt8](data)), "")
        #expect(keys == Set(Config.defaults.map(\.key)))
    }
}

@Suite struct PassageTests {
    @Test func splitsOnSentencesWithExactOffsets() {
        let text = "First one. Second one!  Third?"
        let ps = Passages.split(text, maxScalars: 12)
        let scalars = Array(text.unicodeScalars)
        #expect(ps.map(\.text) == ["First one.", "Second one!", "Third?"])
        for p in ps {
            var s = String.UnicodeScalarView()
            s.append(contentsOf: scalars[p.start..<p.end])
            #expect(String(s) == p.text)
        }
    }

    @Test func packsShortSentencesAndCutsLongOnes() {
        let ps = Passages.split("a b. c d. " + String(repeating: "word ", count: 50), maxScalars: 40)
        #expect(ps.first?.text == "a b. c d.")
        #expect(ps.allSatisfy { $0.end - $0.start <= 40 })
        #expect(ps.count >= 7)
    }

    @Test func bestPassagePrefersMatchingWords() {
        let p = Passages.best(in: "I had breakfast. Then I missed the train again.", matching: ["TRAIN"], maxScalars: 30)
        #expect(p.text == "Then I missed the train again.")
        #expect(p.start == 17)
        let none = Passages.best(in: "I had breakfast. Then I missed the train again.", matching: ["boat"], maxScalars: 30)
        #expect(none.text == "I had breakfast.")
    }

    @Test func emptyTextHasOneEmptyPassage() {
        #expect(Passages.split("") == [Passage(start: 0, end: 0, text: "")])
    }
}
