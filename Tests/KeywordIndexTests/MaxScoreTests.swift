import Testing
@testable import KeywordIndex

/// A small seeded generator, so a failing case can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func term(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct MaxScoreTests {
    /// Words drawn with a skewed distribution: a few very common terms, a long tail of rare ones.
    func word(_ rng: inout SplitMix, vocabulary: Int) -> [UInt8] {
        let u = Double.random(in: 0..<1, using: &rng)
        return term("w\(Int(Double(vocabulary) * u * u * u))")
    }

    @Test(arguments: [1, 2, 3])
    func searchEqualsScoringEveryMatch(seed: UInt64) {
        var rng = SplitMix(state: seed)
        let index = KeywordIndex()
        index.compactionMinimum = 40  // rebuild the lists many times over the run
        let owners = ["a", "b", "c"]
        var rowids: [Int64] = []
        var next: Int64 = 1
        let vocabulary = [8, 40, 300][Int(seed % 3)]
        var compactions = 0
        for round in 0..<4 {
            if round == 2 {
                // Most records go: the dead postings outnumber the live ones and the lists are rebuilt.
                for r in rowids.shuffled(using: &rng).prefix(rowids.count * 3 / 4) {
                    let dead = index.deadSlots
                    index.remove(rowid: r)
                    if index.deadSlots < dead { compactions += 1 }
                }
                let left = Set(rowids.filter { index.contains(rowid: $0) })
                rowids = rowids.filter { left.contains($0) }
            }
            // Inserts, replacements, removals and search switches, enough to trigger compaction.
            for _ in 0..<400 {
                let op = Int.random(in: 0..<10, using: &rng)
                if op < 6 || rowids.isEmpty {
                    let length = Int.random(in: 0...(round % 2 == 0 ? 12 : 60), using: &rng)
                    let terms = (0..<length).map { _ in word(&rng, vocabulary: vocabulary) }
                    index.put(rowid: next, owner: owners.randomElement(using: &rng)!, terms: terms, searchable: Int.random(in: 0..<8, using: &rng) > 0)
                    rowids.append(next)
                    next += 1
                } else if op < 8 {
                    let r = rowids.randomElement(using: &rng)!
                    let terms = (0..<Int.random(in: 1...20, using: &rng)).map { _ in word(&rng, vocabulary: vocabulary) }
                    index.put(rowid: r, owner: owners.randomElement(using: &rng)!, terms: terms, searchable: true)
                } else if op < 9 {
                    let i = Int.random(in: 0..<rowids.count, using: &rng)
                    let dead = index.deadSlots
                    index.remove(rowid: rowids.remove(at: i))
                    if index.deadSlots < dead { compactions += 1 }
                } else {
                    index.setSearchable(rowid: rowids.randomElement(using: &rng)!, Bool.random(using: &rng))
                }
            }
            for _ in 0..<80 {
                var phrases = (0..<Int.random(in: 1...7, using: &rng)).map { _ in word(&rng, vocabulary: vocabulary) }
                if Bool.random(using: &rng), let first = phrases.first { phrases.append(first) }  // a repeated term counts twice
                if Int.random(in: 0..<5, using: &rng) == 0 { phrases.append(term("absent")) }
                let limit = [1, 3, 10, 100, 1000].randomElement(using: &rng)!
                let allowed: Set<Int64>? = Bool.random(using: &rng) ? Set(rowids.filter { _ in Int.random(in: 0..<3, using: &rng) == 0 }) : nil
                let owner = owners.randomElement(using: &rng)!
                let fast = index.search(owner: owner, phrases: phrases, limit: limit, allowed: allowed)
                let plain = index.rankAll(owner: owner, phrases: phrases, limit: limit, allowed: allowed)
                #expect(fast == plain, "seed \(seed) round \(round) owner \(owner) limit \(limit) phrases \(phrases.map { String(decoding: $0, as: UTF8.self) })")
            }
        }
        #expect(compactions > 0)
    }

    @Test func countsFollowWritesAsFTS5Counts() {
        let index = KeywordIndex()
        index.put(rowid: 1, owner: "a", terms: [term("x"), term("y"), term("x")], searchable: true)
        index.put(rowid: 2, owner: "b", terms: [term("x")], searchable: false)
        #expect(index.rows == 2 && index.tokens == 4)
        index.put(rowid: 1, owner: "a", terms: [term("y")], searchable: true)
        #expect(index.rows == 2 && index.tokens == 2)
        // Another owner's record and a hidden one count in idf and the mean length, as in FTS5.
        let idf = BM25.idf(rows: 2, hits: 1)
        let expected = BM25.term(idf: idf, tf: 1, length: 1, averageLength: 1)
        #expect(index.search(owner: "a", phrases: [term("y")], limit: 5) == [KeywordHit(rowid: 1, score: expected)])
        #expect(index.search(owner: "b", phrases: [term("x")], limit: 5).isEmpty)
        index.setSearchable(rowid: 2, true)
        #expect(index.search(owner: "b", phrases: [term("x")], limit: 5).map(\.rowid) == [2])
        index.remove(rowid: 2)
        #expect(index.rows == 1 && index.search(owner: "b", phrases: [term("x")], limit: 5).isEmpty)
        #expect(index.search(owner: "a", phrases: [], limit: 5).isEmpty)
    }
}
