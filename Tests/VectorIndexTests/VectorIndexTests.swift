import Testing
import LinearAlgebra
@testable import VectorIndex
import Kernels
import Dispatch
import Synchronization

/// A small deterministic generator (SplitMix64) so tests need no hidden randomness.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func float() -> Float { Float(next() >> 40) / Float(1 << 24) * 2 - 1 }
    mutating func vector(_ d: Int) -> [Float] { (0..<d).map { _ in float() } }
}

func bruteForce(_ rows: [(Int64, [Float])], _ q: [Float], k: Int, allowed: Set<Int64>? = nil) -> [Int64] {
    let qn = Vectors.normalized(q)
    var scored: [(id: Int64, score: Double)] = []
    for (id, v) in rows where allowed?.contains(id) ?? true {
        scored.append((id, Double(Vectors.dot(Vectors.normalized(v), qn))))
    }
    scored.sort { a, b in a.score != b.score ? a.score > b.score : a.id < b.id }
    return scored.prefix(k).map { $0.id }
}

/// The plain reference: exact float32 brute force, ranking by the same float32 dot product the
/// index re-scores with (so near-ties are compared bit for bit), ties by lower rowid.
func exactReference(_ rows: [(Int64, [Float])], _ q: [Float], k: Int, allowed: Set<Int64>? = nil, exclude: Int64? = nil) -> [ScoredRow] {
    let qn = Vectors.normalized(q)
    var scored: [ScoredRow] = []
    for (id, v) in rows where (allowed?.contains(id) ?? true) && id != exclude {
        let u = Vectors.normalized(v)
        scored.append(ScoredRow(rowid: id, score: FloatKernels.dot(qn, u, dimension: qn.count)))
    }
    return Array(scored.sorted(by: ScoredRow.better).prefix(k))
}

/// Calls `body` with the bounds kernels' view of three arrays.
func withKept<R>(_ index: inout [UInt32], _ upper: inout [Float], _ lower: inout [Float], _ body: (Int8Scan.Kept) -> R) -> R {
    index.withUnsafeMutableBufferPointer { i in
        upper.withUnsafeMutableBufferPointer { u in
            lower.withUnsafeMutableBufferPointer { l in body(Int8Scan.Kept(index: i.baseAddress!, upper: u.baseAddress!, lower: l.baseAddress!)) }
        }
    }
}

/// Rows held apart from the index, as the service's SQLite rows are; `dropped` rows read as gone.
final class SeparateRows: ExactRows, StoredElsewhere, @unchecked Sendable {
    var rows: [Int64: [Float]] = [:]
    var dropped: Set<Int64> = []
    var reads = 0
    func vectors(_ rowids: [Int64]) -> [[Float]?] {
        reads += rowids.count
        return rowids.map { dropped.contains($0) ? nil : rows[$0] }
    }
    func didPut(rowid: Int64, vector: [Float]) {}
    func didRemove(rowid: Int64) {}
}

/// Vectors crowded around one direction: every score against a nearby query falls within `spread`
/// of the others, far inside the int8 codes' error.
func crowded(_ rng: inout SplitMix, count: Int, d: Int, spread: Float) -> (base: [Float], rows: [(Int64, [Float])]) {
    let base = Vectors.normalized(rng.vector(d))
    let rows = (0..<count).map { i -> (Int64, [Float]) in
        var v = base
        for j in 0..<d { v[j] += rng.float() * spread }
        return (Int64(i + 1), v)
    }
    return (base, rows)
}

@Suite struct VectorIndexTests {
    @Test(arguments: [384, 10, 7])
    func exactTopKMatchesBruteForce(d: Int) {
        var rng = SplitMix(state: UInt64(d))
        let index = VectorIndex(dimension: d)
        var rows: [(Int64, [Float])] = []
        for i in 0..<3000 {
            let v = rng.vector(d)
            rows.append((Int64(i + 1), v))
            index.put(owner: "o", rowid: Int64(i + 1), vector: v)
        }
        for _ in 0..<20 {
            let q = rng.vector(d)
            let got = index.search(owner: "o", query: q, k: 10)
            #expect(got.map(\.rowid) == bruteForce(rows, q, k: 10))
            #expect(got == exactReference(rows, q, k: 10))
        }
    }

    /// Rows whose scores differ by far less than the int8 codes' error: the first pass must still
    /// return exactly the float32 ranking, and it reads back only the rows its bounds cannot settle.
    @Test(arguments: [(UInt64(1), Float(1e-4)), (2, 1e-3), (3, 1e-2), (4, 0.1)])
    func int8FirstPassIsExactOnCrowdedRows(seed: UInt64, spread: Float) {
        var rng = SplitMix(state: seed)
        let d = 384
        let (base, rows) = crowded(&rng, count: 4000, d: d, spread: spread)
        let source = SeparateRows()
        let index = VectorIndex(dimension: d, rows: source)
        for (id, v) in rows {
            source.rows[id] = v
            index.put(owner: "o", rowid: id, vector: v)
        }
        for _ in 0..<5 {
            var q = base
            for j in 0..<d { q[j] += rng.float() * spread * 10 }
            #expect(index.search(owner: "o", query: q, k: 10) == exactReference(rows, q, k: 10))
        }
        let allowed = Set(rows.map(\.0).filter { $0 % 7 == 0 })
        #expect(index.search(owner: "o", query: base, k: 10, allowed: allowed) == exactReference(rows, base, k: 10, allowed: allowed))
        #expect(index.search(owner: "o", query: base, k: 3, exclude: 7) == exactReference(rows, base, k: 3, exclude: 7))
    }

    /// Random rows with a few near-duplicates of the query planted among them (the top k crowded,
    /// the rest far): exact, and far fewer rows read back than stored.
    @Test func nearDuplicatesOfTheQueryAmongRandomRows() {
        var rng = SplitMix(state: 99)
        let d = 384
        let q = Vectors.normalized(rng.vector(d))
        let source = SeparateRows()
        let index = VectorIndex(dimension: d, rows: source)
        var rows: [(Int64, [Float])] = []
        for i in 0..<20_000 {
            var v = rng.vector(d)
            if i % 1000 == 0 { v = q.map { $0 + rng.float() * 1e-5 } }
            rows.append((Int64(i), v))
            source.rows[Int64(i)] = v
        }
        index.load(owner: "o", rowids: rows.map(\.0), vectors: rows.flatMap(\.1))
        let got = index.search(owner: "o", query: q, k: 10)
        #expect(got == exactReference(rows, q, k: 10))
        #expect(got.allSatisfy { $0.rowid % 1000 == 0 })
        source.reads = 0
        _ = index.search(owner: "o", query: rng.vector(d), k: 10)
        #expect(source.reads > 0 && source.reads < 1000)
    }

    /// The bound is proven, so it holds row by row: |q·x − approx| ≤ ‖q̂‖·err + slack for unit x,
    /// on rows built to stress the coding (one-hot, constant, tiny and mixed magnitudes).
    @Test func perRowBoundHolds() {
        var rng = SplitMix(state: 5)
        let d = 64
        var vectors: [[Float]] = (0..<400).map { _ in rng.vector(d) }
        vectors.append((0..<d).map { $0 == 3 ? 1 : 0 })
        vectors.append([Float](repeating: 1, count: d))
        vectors.append((0..<d).map { _ in rng.float() * 1e-15 })
        vectors.append((0..<d).map { j in j == 0 ? 1 : rng.float() * 1e-3 })
        let index = VectorIndex(dimension: d)
        for (i, v) in vectors.enumerated() { index.put(owner: "o", rowid: Int64(i), vector: v) }
        for _ in 0..<20 {
            let query = rng.vector(d)
            let q = index.coded(query)
            for (i, v) in vectors.enumerated() {
                let u = Vectors.normalized(v)
                let exact = zip(q.unit, u).reduce(0.0) { $0 + Double($1.0) * Double($1.1) }
                let top = index.searchApprox(owner: "o", query: query, rowid: Int64(i))!
                #expect(abs(exact - Double(top.approx)) <= Double(top.bound))
                // The first level alone (the many-query pass) has a bound of its own, looser.
                #expect(abs(exact - Double(top.approx1)) <= Double(top.bound1))
                #expect(top.bound1 >= top.bound)
            }
        }
    }

    /// The first pass shared by several threads gives exactly the one-thread ranking, filters and
    /// exclusions included (row ranges that do not divide evenly, more threads than needed).
    @Test(arguments: [2, 3, 8])
    func sharedFirstPassEqualsOneThread(threads: Int) {
        var rng = SplitMix(state: UInt64(threads))
        let d = 64
        let one = VectorIndex(dimension: d)
        let many = VectorIndex(dimension: d, scanThreads: threads, parallelScanRows: 100)
        for i in 0..<3001 {
            let v = rng.vector(d)
            one.put(owner: "o", rowid: Int64(i), vector: v)
            many.put(owner: "o", rowid: Int64(i), vector: v)
        }
        let allowed = Set((0..<3001).filter { $0 % 5 == 0 }.map { Int64($0) })
        for _ in 0..<10 {
            let q = rng.vector(d)
            let best = one.search(owner: "o", query: q, k: 10)
            #expect(many.search(owner: "o", query: q, k: 10) == best)
            #expect(many.search(owner: "o", query: q, k: 10, exclude: best[0].rowid) == one.search(owner: "o", query: q, k: 10, exclude: best[0].rowid))
            #expect(many.search(owner: "o", query: q, k: 7, allowed: allowed) == one.search(owner: "o", query: q, k: 7, allowed: allowed))
        }
    }

    /// Concurrent searches (each scanning alone while another runs, or split when it runs by itself)
    /// give exactly the one-thread ranking.
    @Test
    func concurrentSearchesEqualOneThread() {
        var rng = SplitMix(state: 11)
        let d = 64
        let one = VectorIndex(dimension: d)
        let many = VectorIndex(dimension: d, scanThreads: 2, parallelScanRows: 100)
        for i in 0..<4001 {
            let v = rng.vector(d)
            one.put(owner: "o", rowid: Int64(i), vector: v)
            many.put(owner: "o", rowid: Int64(i), vector: v)
        }
        let queries = (0..<24).map { _ in rng.vector(d) }
        let expected = queries.map { one.search(owner: "o", query: $0, k: 10) }
        let got = Mutex([[ScoredRow]](repeating: [], count: queries.count))
        nonisolated(unsafe) let shared = many
        DispatchQueue.concurrentPerform(iterations: queries.count) { i in
            let top = shared.search(owner: "o", query: queries[i], k: 10)
            got.withLock { $0[i] = top }
        }
        #expect(got.withLock { $0 } == expected)
    }

    /// Many queries sharing each pass over the codes give exactly the reference, on random and on
    /// crowded rows, with a filter, over a row count that is not a multiple of the kernel's blocks.
    @Test(arguments: [false, true])
    func batchedSearchMatchesTheReference(crowdedRows: Bool) {
        var rng = SplitMix(state: 7)
        let d = 64
        let rows: [(Int64, [Float])] = crowdedRows ? crowded(&rng, count: 5001, d: d, spread: 1e-3).rows
            : (0..<5001).map { (Int64($0), rng.vector(d)) }
        let index = VectorIndex(dimension: d, sharedScanQueries: 2)
        for (id, v) in rows { index.put(owner: "o", rowid: id, vector: v) }
        let queries = (0..<37).map { i in crowdedRows ? rows[i].1.map { $0 + rng.float() * 1e-3 } : rng.vector(d) }
        let batch = index.searchBatch(owner: "o", queries: queries, k: 10)
        for (q, b) in zip(queries, batch) { #expect(b == exactReference(rows, q, k: 10)) }
        let allowed = Set(rows.map(\.0).filter { $0 % 3 == 0 })
        let filtered = index.searchBatch(owner: "o", queries: queries, k: 5, allowed: allowed)
        for (q, b) in zip(queries, filtered) { #expect(b == exactReference(rows, q, k: 5, allowed: allowed)) }
    }

    /// Rows the source no longer holds (deleted meanwhile) are left out, and the rest is still exact.
    @Test func rowsGoneFromTheSourceAreLeftOut() {
        var rng = SplitMix(state: 13)
        let d = 32
        let source = SeparateRows()
        let index = VectorIndex(dimension: d, rows: source, sharedScanQueries: 2)
        var rows: [(Int64, [Float])] = []
        for i in 0..<2000 {
            let v = rng.vector(d)
            rows.append((Int64(i), v))
            source.rows[Int64(i)] = v
            index.put(owner: "o", rowid: Int64(i), vector: v)
        }
        let q = rng.vector(d)
        let best = index.search(owner: "o", query: q, k: 10)
        source.dropped = Set(best.prefix(3).map(\.rowid))
        let left = rows.filter { !source.dropped.contains($0.0) }
        #expect(index.search(owner: "o", query: q, k: 10) == exactReference(left, q, k: 10))
        #expect(index.searchBatch(owner: "o", queries: [q, q], k: 10) == [exactReference(left, q, k: 10), exactReference(left, q, k: 10)])
    }

    /// The second level computed only for the rows a first-level pass keeps gives those rows the
    /// same bounds as the pass over every row with both levels, whichever rows are kept.
    @Test(arguments: [16, 388])
    func refinedRowsGetTheBoundsOfTheFullPass(d: Int) {
        var rng = SplitMix(state: UInt64(d) + 70)
        let index = VectorIndex(dimension: d)
        let n = 300
        for i in 0..<n { index.put(owner: "o", rowid: Int64(i), vector: rng.vector(d)) }
        let block = index.blocks["o"]!
        let q = index.coded(rng.vector(d))
        let dp = block.padded
        var dots = [Int32](repeating: 0, count: block.groups * 16), dots2 = dots
        var allIdx = [UInt32](repeating: 0, count: n), allUp = [Float](repeating: 0, count: n), allLo = allUp
        // Rows kept: a scattered subset starting at slot 40 (several to a group, whole groups skipped).
        let first = 40
        var kept: [UInt32] = (0..<(n - first)).filter { (r: Int) -> Bool in r % 7 == 0 || r % 16 == 3 }.map { UInt32($0) }
        let keptCount = kept.count
        var up = [Float](repeating: 0, count: keptCount), lo = up
        block.codes.withView { view in
            Int8Scan.dots2(q.codes, Array(q.codes[dp...]), codes: view.codes, groups: view.groups, padded: dp, into: &dots, &dots2)
            let all = withKept(&allIdx, &allUp, &allLo) {
                Int8Scan.bounds(dots: dots, dots2, count: n, rows: view, first: 0, query: q.figures, floor: -.infinity, into: $0)
            }
            #expect(all == n)
            dots.withUnsafeBufferPointer { dp1 in
                withKept(&kept, &up, &lo) {
                    Int8Scan.refine(Array(q.codes[dp...]), rows: view, first: first, dots: dp1.baseAddress! + first, count: keptCount, query: q.figures,
                                    kept: $0)
                }
            }
        }
        for (j, r) in kept.enumerated() {
            let slot = first + Int(r)
            #expect(up[j] == allUp[slot])
            #expect(lo[j] == allLo[slot])
        }
    }

    @Test func deletedRowsReallyLeaveAndUpdatesReplace() throws {
        var rng = SplitMix(state: 3)
        let index = VectorIndex(dimension: 16)
        var rows: [Int64: [Float]] = [:]
        for i in 0..<200 {
            let v = rng.vector(16)
            rows[Int64(i)] = v
            index.put(owner: "o", rowid: Int64(i), vector: v)
        }
        for i in stride(from: 0, to: 200, by: 3) {
            #expect(index.remove(rowid: Int64(i)))
            rows[Int64(i)] = nil
        }
        #expect(!index.remove(rowid: 0))
        let replaced = rng.vector(16)
        index.put(owner: "o", rowid: 1, vector: replaced)
        rows[1] = replaced
        #expect(index.count(owner: "o") == rows.count)
        // Every per-slot array keeps whole groups of 16 slots, no more.
        let block = try #require(index.blocks["o"])
        #expect(block.groups == (rows.count + 15) / 16)
        #expect(block.codes.errors.count == block.codes.scales.count && block.codes.sums.count == block.codes.scales.count)
        #expect(block.codes.codes.count == block.codes.scales.count * block.padded)
        for _ in 0..<10 {
            let q = rng.vector(16)
            let got = index.search(owner: "o", query: q, k: 200).map(\.rowid)
            #expect(got == bruteForce(rows.map { ($0.key, $0.value) }, q, k: 200))
        }
        // The replaced vector is its own nearest neighbour.
        #expect(index.search(owner: "o", query: replaced, k: 1).first?.rowid == 1)
    }

    @Test func ownersAndFiltersApplyInsideTheScan() {
        var rng = SplitMix(state: 11)
        let index = VectorIndex(dimension: 32)
        var alice: [(Int64, [Float])] = []
        for i in 0..<500 {
            let v = rng.vector(32)
            if i % 2 == 0 { alice.append((Int64(i), v)); index.put(owner: "alice", rowid: Int64(i), vector: v) } else {
                index.put(owner: "bob", rowid: Int64(i), vector: v)
            }
        }
        let q = rng.vector(32)
        let hits = index.search(owner: "alice", query: q, k: 50)
        #expect(hits.allSatisfy { $0.rowid % 2 == 0 })
        let allowed = Set(alice.map(\.0).filter { $0 % 3 == 0 })
        let filtered = index.search(owner: "alice", query: q, k: 10, allowed: allowed.union([1, 3]))
        #expect(filtered.map(\.rowid) == bruteForce(alice, q, k: 10, allowed: allowed))
        #expect(index.search(owner: "carol", query: q, k: 10).isEmpty)
        #expect(!index.search(owner: "alice", query: q, k: 5, exclude: hits[0].rowid).contains { $0.rowid == hits[0].rowid })
    }

    @Test func bulkLoadEqualsOneByOnePuts() {
        var rng = SplitMix(state: 21)
        let a = VectorIndex(dimension: 32), b = VectorIndex(dimension: 32)
        var flat: [Float] = []
        for i in 0..<300 {
            let v = rng.vector(32)
            flat += v
            a.put(owner: "o", rowid: Int64(i), vector: v)
        }
        b.load(owner: "o", rowids: (0..<300).map { Int64($0) }, vectors: flat)
        let source = SeparateRows()
        let c = VectorIndex(dimension: 32, rows: source)
        for i in 0..<300 { source.rows[Int64(i)] = Array(flat[(i * 32)..<((i + 1) * 32)]) }
        c.load(owner: "o", rowids: (0..<150).map { Int64($0) }, vectors: Array(flat[0..<(150 * 32)]))
        c.load(owner: "o", rowids: (150..<300).map { Int64($0) }, vectors: Array(flat[(150 * 32)...]))
        c.load(owner: "o", rowids: [5], vectors: Array(flat[0..<32]))
        source.rows[5] = Array(flat[0..<32])
        b.load(owner: "o", rowids: [5], vectors: Array(flat[0..<32]))  // replaces row 5
        a.put(owner: "o", rowid: 5, vector: Array(flat[0..<32]))
        #expect(b.count == 300)
        for _ in 0..<5 {
            let q = rng.vector(32)
            #expect(a.search(owner: "o", query: q, k: 20) == b.search(owner: "o", query: q, k: 20))
            #expect(a.search(owner: "o", query: q, k: 20) == c.search(owner: "o", query: q, k: 20))
        }
    }

    @Test func tiesBreakByLowerRowid() {
        let index = VectorIndex(dimension: 2)
        index.put(owner: "o", rowid: 9, vector: [1, 0])
        index.put(owner: "o", rowid: 4, vector: [2, 0])
        index.put(owner: "o", rowid: 6, vector: [0, 1])
        #expect(index.search(owner: "o", query: [1, 0], k: 2).map(\.rowid) == [4, 9])
    }
}
