import LinearAlgebra

/// One keyword hit: the record and its BM25 score (higher is better; FTS5's bm25() negated).
public typealias KeywordHit = RankedRow<Double>

/// A query prepared against the index: its phrases (one term each) with their idf, and the
/// distinct terms the owner's lists hold.
struct PreparedQuery {
    /// Per phrase, in query order: its term's position in `terms` (nil when the owner has no such term) and idf.
    var phrases: [(term: Int?, idf: Double)] = []
    /// Distinct terms present in the owner's lists.
    var lists: [PostingList] = []
}

extension KeywordIndex {
    func prepare(owner: Int32, phrases: [[UInt8]]) -> PreparedQuery {
        var q = PreparedQuery()
        var position: [Int32: Int] = [:]
        for p in phrases {
            let number = termNumbers[p]
            let idf = BM25.idf(rows: rows, hits: number.map { Int(rowsWithTerm[Int($0)]) } ?? 0)
            guard let number, let list = ownerLists[Int(owner)][number] else { q.phrases.append((nil, idf)); continue }
            let at = position[number] ?? {
                position[number] = q.lists.count
                q.lists.append(list)
                return q.lists.count - 1
            }()
            q.phrases.append((at, idf))
        }
        return q
    }

    /// The score of a slot from its frequency of each distinct term, summed phrase by phrase as FTS5 does.
    @inline(__always)
    func score(_ q: PreparedQuery, frequencies: UnsafeMutableBufferPointer<Int32>, length: Int32, averageLength: Double) -> Double {
        var score = 0.0
        for p in q.phrases {
            guard let t = p.term else { continue }
            score += BM25.term(idf: p.idf, tf: Double(frequencies[t]), length: Double(length), averageLength: averageLength)
        }
        return score
    }

    /// The plain rule: every eligible record of `owner` holding any of the phrases (one term each,
    /// repeats count twice, as FTS5 counts a repeated phrase) is scored, and the best `limit` kept.
    public func rankAll(owner: String, phrases: [[UInt8]], limit: Int, allowed: Set<Int64>? = nil) -> [KeywordHit] {
        guard limit > 0, let o = ownerNumbers[owner], rows > 0 else { return [] }
        let q = prepare(owner: o, phrases: phrases)
        var frequency: [Int32: [Int32]] = [:]  // slot → frequency per distinct term
        for (t, list) in q.lists.enumerated() {
            for (slot, f) in zip(list.slots, list.frequencies) where eligible(slot, allowed: allowed) {
                frequency[slot, default: [Int32](repeating: 0, count: q.lists.count)][t] = f
            }
        }
        let avg = averageLength
        var hits: [KeywordHit] = []
        for (slot, var f) in frequency {
            let s = f.withUnsafeMutableBufferPointer { score(q, frequencies: $0, length: slotLength[Int(slot)], averageLength: avg) }
            hits.append(KeywordHit(rowid: slotRowid[Int(slot)], score: s))
        }
        return Array(hits.sorted(by: KeywordHit.better).prefix(limit))
    }
}
