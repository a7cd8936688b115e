import Foundation
import Testing
import KindredCore
@testable import Service

/// Hybrid search takes only the semantic top `limit` before score fusion. The plain rule it must
/// equal: every record of the owner ranked by its cosine plus its keyword bonus (zero outside the
/// keyword pool), best `limit` kept.
@Suite struct HybridCandidatesTests {
    static let words = ["train", "station", "missed", "mother", "teacher", "flying", "crane", "harbour", "dawn", "water",
                        "library", "exam", "garden", "dog", "storm", "bridge", "letter", "window", "forest", "kitchen"]

    @Test(arguments: [3, 4])
    func fusedTopEqualsFusingEveryRecord(seed: UInt64) throws {
        var rng = SplitMix64(state: seed)
        let f = try ServiceFixture()
        var records: [JSONValue] = []
        for i in 0..<400 {
            let text = (0..<Int.random(in: 3...12, using: &rng)).map { _ in Self.words.randomElement(using: &rng)! }.joined(separator: " ")
            let v = (0..<8).map { _ in Float.random(in: -1...1, using: &rng) }
            records.append(.object(["id": .string("r\(i)"), "revision": 1, "text": .string(text), "vector": .from(v)]))
        }
        _ = try f.upsert("o", records)
        var compared = 0
        for _ in 0..<60 {
            let text = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Self.words.randomElement(using: &rng)! }.joined(separator: " ")
            let query = (0..<8).map { _ in Float.random(in: -1...1, using: &rng) }
            let limit = [1, 5, 10, 30].randomElement(using: &rng)!
            let got = try f.call("search/query", ["owner": "o", "text": .string(text), "vector": .from(query), "mode": "hybrid", "limit": .from(limit)])
            let ids = got["results"]!.arrayValue!.map { $0["id"]!.stringValue! }
            let scores = got["results"]!.arrayValue!.map { $0["score"]!.doubleValue! }

            // The plain rule: every record is a semantic candidate.
            let s = f.service
            let everyRow = s.readIndex { $0.search(owner: "o", query: query, k: 1000, allowed: nil) }
            #expect(everyRow.count == 400)
            let terms = KeywordTerms(query: text, maxTerms: 32)
            let keyword = try s.keywordHits(owner: "o", terms: terms, filters: SearchFilters(), allowed: nil, limit: s.config.int("search.candidatePool"))
            let fused = try s.fuseScores(owner: "o", semantic: everyRow.map { ($0.rowid, Double($0.score)) }, keyword: keyword, terms: terms.terms,
                                         query: query, limit: limit)
            let rows = try s.withReader { try $0.records(rowids: fused.map(\.0)) }
            #expect(ids == fused.map { rows[$0.0]!.record.id }, "query '\(text)' limit \(limit)")
            #expect(scores == fused.map(\.1))
            if !keyword.isEmpty { compared += 1 }
        }
        #expect(compared > 40)
    }
}
