import LinearAlgebra

/// Top-k keyword search without scoring every matching record (MaxScore, document at a time).
///
/// Each distinct query term gets an upper bound of what it can add to a score: its idf times the BM25
/// term at its list's largest frequency and shortest document (times its repeats in the query).
/// With the terms sorted by bound, the longest prefix whose bounds sum below the current k-th score
/// holds the "non-essential" terms: a record holding only those cannot enter the top k, so candidates
/// come from the other lists alone, and a candidate's non-essential terms are looked up (skipping
/// ahead in their lists) only while its score could still reach the k-th. Every record that could be
/// in the top k gets its exact score, computed as `rankAll` computes it, so the result is the same.
extension KeywordIndex {
    public func search(owner: String, phrases: [[UInt8]], limit: Int, allowed: Set<Int64>? = nil) -> [KeywordHit] {
        guard limit > 0, let o = ownerNumbers[owner], rows > 0 else { return [] }
        let q = prepare(owner: o, phrases: phrases)
        let m = q.lists.count
        guard m > 0 else { return [] }
        let avg = averageLength

        // Bound of each distinct term (all its phrases), slightly widened against rounding.
        var bound = [Double](repeating: 0, count: m)
        for p in q.phrases {
            guard let t = p.term else { continue }
            let l = q.lists[t]
            bound[t] += BM25.term(idf: p.idf, tf: Double(l.maxFrequency), length: Double(l.minLength), averageLength: avg)
        }
        // Terms in increasing bound; cumulative[i] = bound of order[0...i].
        let order = (0..<m).sorted { bound[$0] != bound[$1] ? bound[$0] < bound[$1] : $0 < $1 }
        var cumulative = [Double](repeating: 0, count: m)
        var running = 0.0
        for (i, t) in order.enumerated() {
            running += bound[t] * (1 + 1e-9)
            cumulative[i] = running
        }

        var top = BoundedHeap<KeywordHit>(k: limit, reserving: min(limit, 4096))
        var position = [Int](repeating: 0, count: m)
        var frequencies = [Int32](repeating: 0, count: m)
        var essential = 0  // order[essential...] are the essential terms
        var threshold = -Double.infinity
        var slack = 0.0

        frequencies.withUnsafeMutableBufferPointer { f in
            while essential < m {
                // The next candidate: the smallest current slot among the essential lists.
                var slot = Int32.max
                for i in essential..<m {
                    let t = order[i]
                    if position[t] < q.lists[t].count { slot = min(slot, q.lists[t].slots[position[t]]) }
                }
                if slot == .max { break }
                var partial = 0.0
                for i in essential..<m {
                    let t = order[i]
                    let l = q.lists[t]
                    if position[t] < l.count && l.slots[position[t]] == slot {
                        f[t] = l.frequencies[position[t]]
                        position[t] += 1
                    }
                }
                defer { for t in 0..<m { f[t] = 0 } }
                guard eligible(slot, allowed: allowed) else { continue }
                let length = slotLength[Int(slot)]
                for i in essential..<m where f[order[i]] > 0 {
                    partial += termScore(q, term: order[i], frequency: f[order[i]], length: length, averageLength: avg)
                }
                // Non-essential terms, largest bound first, while the score could still reach the k-th.
                var hopeless = false
                var i = essential - 1
                while i >= 0 {
                    if partial + cumulative[i] + slack < threshold { hopeless = true; break }
                    let t = order[i]
                    let l = q.lists[t]
                    position[t] = l.seek(slot, from: position[t])
                    if position[t] < l.count && l.slots[position[t]] == slot {
                        f[t] = l.frequencies[position[t]]
                        partial += termScore(q, term: t, frequency: f[t], length: length, averageLength: avg)
                    }
                    i -= 1
                }
                if hopeless { continue }
                let exact = score(q, frequencies: f, length: length, averageLength: avg)
                top.offer(KeywordHit(rowid: slotRowid[Int(slot)], score: exact))
                if top.isFull {
                    threshold = top.worst!.score
                    slack = 1e-9 * max(1, abs(threshold))
                    while essential < m && cumulative[essential] + slack < threshold { essential += 1 }
                }
            }
        }
        return top.sorted()
    }

    /// What one distinct term adds for `frequency` (all its phrases), for pruning only.
    @inline(__always)
    private func termScore(_ q: PreparedQuery, term: Int, frequency: Int32, length: Int32, averageLength: Double) -> Double {
        var s = 0.0
        for p in q.phrases where p.term == term {
            s += BM25.term(idf: p.idf, tf: Double(frequency), length: Double(length), averageLength: averageLength)
        }
        return s
    }
}
