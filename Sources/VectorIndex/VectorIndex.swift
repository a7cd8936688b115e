import Dispatch
import CKernels
import LinearAlgebra

/// How a single query is scored against an owner's block. Every kernel returns the exact float32 top-k.
public enum ScanKernel: String, Sendable {
    /// First pass over the half-float copy (half the memory traffic), then the few rows that could
    /// still be in the top k are re-scored in float32. Exact: see `VectorIndex.halfWindow`.
    case half
    /// Float32 dot products, four rows at a time (AVX2/FMA when available).
    case simd
    /// `cblas_sgemv` over the block.
    case gemv
}

/// Exact cosine top-k over in-memory float32 matrices, one per owner, for one index version.
/// Not thread-safe: callers serialise writes and may run reads concurrently under a read lock.
public final class VectorIndex {
    public let dimension: Int
    /// Query blocks of at least this many rows are scored with one `cblas_sgemm` per row block.
    public var batchGemmThreshold: Int
    public var singleKernel: ScanKernel
    /// Threads that share the half-float first pass of one query over a large block (the float32
    /// re-scoring of the few candidates stays on the calling thread). Each row's score is computed the
    /// same way whichever thread does it, so results do not depend on this.
    public var scanThreads: Int
    /// Blocks below this many rows are scanned on the calling thread alone.
    public var parallelScanRows: Int
    private var blocks: [String: OwnerBlock] = [:]
    private var ownerOf: [Int64: String] = [:]

    /// Rows scored per pass of the single-query scan (keeps the score buffer in L1/L2).
    static let chunkRows = 1024
    /// Database rows per gemm block in batched search.
    static let gemmRows = 4096

    public init(dimension: Int, batchGemmThreshold: Int = 8, singleKernel: ScanKernel = .half, scanThreads: Int = 1, parallelScanRows: Int = 32_768) {
        self.dimension = dimension
        self.batchGemmThreshold = batchGemmThreshold
        self.singleKernel = singleKernel
        self.scanThreads = max(1, scanThreads)
        self.parallelScanRows = parallelScanRows
    }

    public var count: Int { ownerOf.count }
    public func count(owner: String) -> Int { blocks[owner]?.count ?? 0 }
    public func contains(rowid: Int64) -> Bool { ownerOf[rowid] != nil }

    /// Inserts or replaces a row; the vector is normalised on the way in.
    public func put(owner: String, rowid: Int64, vector: [Float]) {
        precondition(vector.count == dimension, "dimension mismatch")
        if let old = ownerOf[rowid], old != owner { remove(rowid: rowid) }
        var v = vector
        v.withUnsafeMutableBufferPointer { Vectors.normalize($0.baseAddress!, count: dimension) }
        v.withUnsafeBufferPointer { blocks[owner, default: OwnerBlock(dimension: dimension)].put(rowid: rowid, unit: $0) }
        ownerOf[rowid] = owner
    }

    /// Adds many rows of one owner at once (loading from storage). `vectors` holds `rowids.count`
    /// vectors back to back; they are normalised here. Rowids already present are replaced.
    public func load(owner: String, rowids: [Int64], vectors: consuming [Float]) {
        precondition(vectors.count == rowids.count * dimension, "size mismatch")
        if rowids.contains(where: { ownerOf[$0] != nil }) {
            for (i, r) in rowids.enumerated() { put(owner: owner, rowid: r, vector: Array(vectors[(i * dimension)..<((i + 1) * dimension)])) }
            return
        }
        var units = vectors
        units.withUnsafeMutableBufferPointer { buf in
            for i in 0..<rowids.count { Vectors.normalize(buf.baseAddress! + i * dimension, count: dimension) }
        }
        ownerOf.reserveCapacity(ownerOf.count + rowids.count)
        for r in rowids { ownerOf[r] = owner }
        blocks[owner, default: OwnerBlock(dimension: dimension)].appendMany(rowids: rowids, units: units)
    }

    @discardableResult
    public func remove(rowid: Int64) -> Bool {
        guard let owner = ownerOf.removeValue(forKey: rowid) else { return false }
        blocks[owner]?.remove(rowid: rowid)
        if blocks[owner]?.count == 0 { blocks[owner] = nil }
        return true
    }

    public func vector(rowid: Int64) -> [Float]? {
        guard let owner = ownerOf[rowid] else { return nil }
        return blocks[owner]?.vector(rowid: rowid)
    }

    /// The best `k` rows of `owner` by cosine with `query`. When `allowed` is given, only those rowids
    /// are eligible (the predicate is applied inside the scan).
    public func search(owner: String, query: [Float], k: Int, allowed: Set<Int64>? = nil, exclude: Int64? = nil) -> [ScoredRow] {
        precondition(query.count == dimension, "dimension mismatch")
        guard let block = blocks[owner], k > 0 else { return [] }
        let q = Vectors.normalized(query)
        let mask = allowed.map { block.mask(allowing: $0) }
        if singleKernel == .half { return searchHalf(block: block, query: q, k: k, mask: mask, exclude: exclude) }
        var top = TopK(k: k)
        let d = dimension
        let chunk = Self.chunkRows
        var scores = [Float](repeating: 0, count: chunk)
        q.withUnsafeBufferPointer { qp in
            block.vectors.withUnsafeBufferPointer { vp in
                scores.withUnsafeMutableBufferPointer { sp in
                    var start = 0
                    while start < block.count {
                        let n = min(chunk, block.count - start)
                        let rows = vp.baseAddress! + start * d
                        switch singleKernel {
                        case .gemv: BLAS.gemv(rows, qp.baseAddress!, sp.baseAddress!, rows: n, cols: d)
                        default: kindred_dots_f32(qp.baseAddress!, rows, n, d, sp.baseAddress!)
                        }
                        Self.collect(scores: sp.baseAddress!, count: n, start: start, block: block, mask: mask, exclude: exclude, into: &top)
                        start += n
                    }
                }
            }
        }
        return top.sorted()
    }

    /// How far a half-float score can be from the float32 one, doubled (both the k-th score and a
    /// candidate's may be off). For unit vectors: rounding each component to half precision changes it
    /// by at most 2⁻¹¹ of itself, so ‖x − x̃‖ ≤ 2⁻¹¹ and |q·x − q·x̃| ≤ 2⁻¹¹; float32 accumulation over
    /// d terms adds at most d·2⁻²⁴. A margin of 1.5 on top.
    func halfWindow() -> Float {
        1.5 * 2 * (Float(0.00048828125) + Float(dimension) * Float(5.9604645e-8))
    }

    /// Half-float first pass over every row, then exact float32 scores for the rows within
    /// `halfWindow` of the approximate k-th best. Returns exactly what a float32 scan returns.
    private func searchHalf(block: OwnerBlock, query q: [Float], k: Int, mask: [Bool]?, exclude: Int64?) -> [ScoredRow] {
        let n = block.count, d = dimension
        var approx = [Float](repeating: 0, count: n)
        let parts = n >= parallelScanRows ? min(scanThreads, n) : 1
        q.withUnsafeBufferPointer { qp in
            block.half.withUnsafeBufferPointer { hp in
                approx.withUnsafeMutableBufferPointer { ap in
                    let qb = qp.baseAddress!, hb = hp.baseAddress!, out = ap.baseAddress!
                    if parts == 1 {
                        kindred_dots_f16(qb, hb, n, d, out)
                    } else {
                        // Contiguous row ranges, one per thread; each writes only its own scores.
                        let per = (n + parts - 1) / parts
                        nonisolated(unsafe) let (q, h, o) = (qb, hb, out)
                        DispatchQueue.concurrentPerform(iterations: parts) { part in
                            let start = part * per, count = min(per, n - start)
                            if count > 0 { kindred_dots_f16(q, h + start * d, count, d, o + start) }
                        }
                    }
                }
            }
        }
        // The approximate k-th best among eligible rows.
        var coarse = TopK(k: k)
        approx.withUnsafeBufferPointer { Self.collect(scores: $0.baseAddress!, count: n, start: 0, block: block, mask: mask, exclude: exclude, into: &coarse) }
        let floor = coarse.threshold - halfWindow()
        var top = TopK(k: k)
        var one: Float = 0
        q.withUnsafeBufferPointer { qp in
            block.vectors.withUnsafeBufferPointer { vp in
                approx.withUnsafeBufferPointer { ap in
                    for slot in 0..<n where ap[slot] >= floor {
                        if let mask, !mask[slot] { continue }
                        let rowid = block.rowids[slot]
                        if rowid == exclude { continue }
                        kindred_dots_f32(qp.baseAddress!, vp.baseAddress! + slot * d, 1, d, &one)
                        top.offer(ScoredRow(rowid: rowid, score: one))
                    }
                }
            }
        }
        return top.sorted()
    }

    @inline(__always)
    private static func collect(scores: UnsafePointer<Float>, count n: Int, start: Int, block: OwnerBlock, mask: [Bool]?, exclude: Int64?, into top: inout TopK) {
        var threshold = top.threshold
        for i in 0..<n where scores[i] >= threshold {
            let slot = start + i
            if let mask, !mask[slot] { continue }
            let rowid = block.rowids[slot]
            if rowid == exclude { continue }
            top.offer(ScoredRow(rowid: rowid, score: scores[i]))
            threshold = top.threshold
        }
    }

    /// Top-k for many queries. From `batchGemmThreshold` queries on, scores come from one
    /// `cblas_sgemm` per block of database rows; below it, each query is scanned on its own.
    public func searchBatch(owner: String, queries: [[Float]], k: Int, allowed: Set<Int64>? = nil) -> [[ScoredRow]] {
        guard let block = blocks[owner], k > 0, !queries.isEmpty else { return queries.map { _ in [] } }
        if queries.count < batchGemmThreshold {
            return queries.map { search(owner: owner, query: $0, k: k, allowed: allowed) }
        }
        let d = dimension, nq = queries.count
        var qm = [Float]()
        qm.reserveCapacity(nq * d)
        for q in queries {
            precondition(q.count == d, "dimension mismatch")
            qm.append(contentsOf: Vectors.normalized(q))
        }
        let mask = allowed.map { block.mask(allowing: $0) }
        var tops = (0..<nq).map { _ in TopK(k: k) }
        let rowsPerBlock = Self.gemmRows
        var scores = [Float](repeating: 0, count: nq * rowsPerBlock)
        qm.withUnsafeBufferPointer { qp in
            block.vectors.withUnsafeBufferPointer { vp in
                scores.withUnsafeMutableBufferPointer { sp in
                    var start = 0
                    while start < block.count {
                        let n = min(rowsPerBlock, block.count - start)
                        BLAS.gemm(qp.baseAddress!, vp.baseAddress! + start * d, sp.baseAddress!, m: nq, n: n, k: d, transB: true, ldc: n)
                        for qi in 0..<nq {
                            Self.collect(scores: sp.baseAddress! + qi * n, count: n, start: start, block: block, mask: mask, exclude: nil, into: &tops[qi])
                        }
                        start += n
                    }
                }
            }
        }
        return tops.map { $0.sorted() }
    }
}
