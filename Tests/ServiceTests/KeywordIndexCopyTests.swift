import Foundation
import Testing
import KindredCore
import Storage
@testable import Service

/// The in-memory keyword copy against SQLite FTS5 itself: on random corpora (stemmed words,
/// accents, punctuation, several owners, hidden and deleted records, rewritten texts), keyword
/// hits from the copy equal FTS5's bm25() ranking, with and without filters.
@Suite struct KeywordIndexCopyTests {
    static let words = [
        "fly", "flying", "flies", "flew", "crane", "cranes", "train", "trains", "station", "missed", "missing", "mother",
        "teacher", "teachers", "café", "naïve", "Über", "über", "résumé", "dream", "dreams", "water", "harbour", "dawn",
        "library", "libraries", "package", "packages", "the", "I", "where", "could", "run", "running", "ran", "x11",
        "2024", "e-mail", "don't", "rock'n'roll", "ΑΘΗΝΑ", "αθηνα", "東京", "a", "of", "and", "sea", "seas", "blue",
    ]

    func text(_ rng: inout SplitMix64, length: Int) -> String {
        let seps = [" ", " ", " ", ", ", ". ", "; ", " — ", "\n", "(", ")"]
        var s = ""
        for _ in 0..<length {
            s += Self.words[Int(Double(Self.words.count) * pow(Double.random(in: 0..<1, using: &rng), 1.7))]
            s += seps.randomElement(using: &rng)!
        }
        return s
    }

    func fromFTS(_ f: ServiceFixture, owner: String, terms: KeywordTerms, filters: SearchFilters, limit: Int) throws -> [(rowid: Int64, score: Double)] {
        try f.service.withReader { try $0.keywordSearch(owner: owner, terms: terms, filters: filters, limit: limit) }
    }

    @Test(arguments: [11, 12])
    func copyRanksAsFTS5(seed: UInt64) throws {
        var rng = SplitMix64(state: seed)
        let f = try ServiceFixture()
        #expect(f.service.keywords.isReady)
        let owners = ["a", "b"]
        var live: [String: [String: Int64]] = ["a": [:], "b": [:]]  // id → revision
        var next = 0
        var checked = 0
        for round in 0..<4 {
            for _ in 0..<8 {
                let owner = owners.randomElement(using: &rng)!
                var batch: [JSONValue] = []
                var ids = Set<String>()
                for _ in 0..<Int.random(in: 1...40, using: &rng) {
                    let rewrite = !live[owner]!.isEmpty && Int.random(in: 0..<4, using: &rng) == 0
                    let id = rewrite ? live[owner]!.keys.sorted().randomElement(using: &rng)! : "r\(next)"
                    if !ids.insert(id).inserted { continue }
                    if !rewrite { next += 1 }
                    let rev = (live[owner]![id] ?? 0) + 1
                    live[owner]![id] = rev
                    var extra: JSONObject = ["kind": .string(Bool.random(using: &rng) ? "dream" : "note")]
                    if Int.random(in: 0..<6, using: &rng) == 0 { extra["permissions"] = ["search": false, "patterns": true] }
                    // At least one word: records/upsert refuses a text without any.
                    batch.append(rec(id, rev: rev, text: text(&rng, length: Int.random(in: 1...25, using: &rng)), extra: extra))
                }
                _ = try f.upsert(owner, batch)
            }
            // Deletes and search switches.
            for owner in owners {
                let doomed = Array(live[owner]!.keys.sorted().shuffled(using: &rng).prefix(3))
                try f.call("records/delete", ["owner": .string(owner), "ids": .from(doomed)])
                for d in doomed { live[owner]![d] = nil }
                if let id = live[owner]!.keys.sorted().randomElement(using: &rng) {
                    try f.call("records/setPermissions", ["owner": .string(owner), "id": .string(id), "permissions": ["search": .bool(Bool.random(using: &rng))]])
                }
            }
            for _ in 0..<40 {
                let owner = owners.randomElement(using: &rng)!
                let query = text(&rng, length: Int.random(in: 1...6, using: &rng))
                let terms = KeywordTerms(query: query, maxTerms: 32)
                var filters = SearchFilters()
                if Int.random(in: 0..<3, using: &rng) == 0 { filters.kinds = ["dream"] }
                let limit = [1, 5, 10, 100].randomElement(using: &rng)!
                let copy = try f.service.keywordHits(owner: owner, terms: terms, filters: filters, allowed: nil, limit: limit)
                let fts = try fromFTS(f, owner: owner, terms: terms, filters: filters, limit: limit)
                #expect(copy.map(\.rowid) == fts.map(\.rowid), "seed \(seed) round \(round) query '\(query)' limit \(limit)")
                // Same formula, same order of operations as fts5_aux.c: the scores agree to the bit.
                #expect(copy.map(\.score) == fts.map(\.score), "seed \(seed) round \(round) query '\(query)'")
                if !fts.isEmpty { checked += 1 }
            }
        }
        #expect(checked > 60)
    }

    @Test func aCopyBuiltFromAnExistingFileRanksAsFTS5() throws {
        var rng = SplitMix64(state: 5)
        let f = try ServiceFixture()
        _ = try f.upsert("o", (0..<300).map { rec("r\($0)", text: text(&rng, length: 12)) })
        let reopened = try f.reopen()
        defer { reopened.close() }
        #expect(!reopened.keywords.isReady)
        try reopened.buildKeywordIndex()
        for q in ["flying crane", "the missed trains", "café über", "libraries packages x11", "東京 sea"] {
            let terms = KeywordTerms(query: q)
            let copy = try reopened.keywordHits(owner: "o", terms: terms, filters: SearchFilters(), allowed: nil, limit: 20)
            let fts = try reopened.withReader { try $0.keywordSearch(owner: "o", terms: terms, filters: SearchFilters(), limit: 20) }
            #expect(copy.map(\.rowid) == fts.map(\.rowid), "\(q)")
        }
    }
}

/// A small seeded generator.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
