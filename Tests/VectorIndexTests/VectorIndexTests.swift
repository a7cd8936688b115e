import Testing
import LinearAlgebra
@testable import VectorIndex

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

@Suite struct VectorIndexTests {
    @Test(arguments: [ScanKernel.half, .simd, .gemv], [384, 10])
    func exactTopKMatchesBruteForce(kernel: ScanKernel, d: Int) {
        var rng = SplitMix(state: UInt64(d))
        let index = VectorIndex(dimension: d, singleKernel: kernel)
        var rows: [(Int64, [Float])] = []
        for i in 0..<3000 {
            let v = rng.vector(d)
            rows.append((Int64(i + 1), v))
            index.put(owner: "o", rowid: Int64(i + 1), vector: v)
        }
        for _ in 0..<20 {
            let q = rng.vector(d)
            let got = index.search(owner: "o", query: q, k: 10).map(\.rowid)
            #expect(got == bruteForce(rows, q, k: 10))
        }
    }

    /// Rows whose scores differ by less than half-float precision: the half-float first pass must
    /// still return exactly the float32 ranking.
    @Test(arguments: [1, 2, 3])
    func halfPrefilterIsExactOnNearTies(seed: UInt64) {
        var rng = SplitMix(state: seed)
        let d = 384
        let base = Vectors.normalized(rng.vector(d))
        let half = VectorIndex(dimension: d, singleKernel: .half)
        let full = VectorIndex(dimension: d, singleKernel: .simd)
        for i in 0..<4000 {
            // Tiny perturbations of one direction: scores against `base` crowd within ~1e-5.
            var v = base
            for j in 0..<d { v[j] += rng.float() * 1e-4 }
            half.put(owner: "o", rowid: Int64(i), vector: v)
            full.put(owner: "o", rowid: Int64(i), vector: v)
        }
        for _ in 0..<5 {
            var q = base
            for j in 0..<d { q[j] += rng.float() * 1e-3 }
            let a = half.search(owner: "o", query: q, k: 10)
            let b = full.search(owner: "o", query: q, k: 10)
            #expect(a == b)
        }
        let allowed = Set((0..<4000).filter { $0 % 7 == 0 }.map { Int64($0) })
        #expect(half.search(owner: "o", query: base, k: 10, allowed: allowed) == full.search(owner: "o", query: base, k: 10, allowed: allowed))
    }

    /// The first pass shared by several threads gives exactly the one-thread ranking, filters and
    /// exclusions included (row ranges that do not divide evenly, more threads than needed).
    @Test(arguments: [2, 3, 8])
    func sharedFirstPassEqualsOneThread(threads: Int) {
        var rng = SplitMix(state: UInt64(threads))
        let d = 64
        let one = VectorIndex(dimension: d, singleKernel: .half)
        let many = VectorIndex(dimension: d, singleKernel: .half, scanThreads: threads, parallelScanRows: 100)
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

    @Test func batchedGemmEqualsSingleScans() {
        var rng = SplitMix(state: 7)
        let index = VectorIndex(dimension: 64, batchGemmThreshold: 2)
        for i in 0..<5000 { index.put(owner: "o", rowid: Int64(i), vector: rng.vector(64)) }
        let queries = (0..<16).map { _ in rng.vector(64) }
        let batch = index.searchBatch(owner: "o", queries: queries, k: 10)
        for (q, b) in zip(queries, batch) {
            let single = index.search(owner: "o", query: q, k: 10)
            #expect(b.map(\.rowid) == single.map(\.rowid))
            for (x, y) in zip(b, single) { #expect(abs(x.score - y.score) < 1e-5) }
        }
    }

    @Test func deletedRowsReallyLeaveAndUpdatesReplace() {
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
        b.load(owner: "o", rowids: [5], vectors: Array(flat[0..<32]))  // replaces row 5
        a.put(owner: "o", rowid: 5, vector: Array(flat[0..<32]))
        #expect(b.count == 300)
        for _ in 0..<5 {
            let q = rng.vector(32)
            #expect(a.search(owner: "o", query: q, k: 20) == b.search(owner: "o", query: q, k: 20))
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
