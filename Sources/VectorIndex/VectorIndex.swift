public import LinearAlgebra

/// How a single query is scored against an owner's block.
public enum ScanKernel: String, Sendable {
    /// Hand-written SIMD dot products, four rows at a time.
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
    private var blocks: [String: OwnerBlock] = [:]
    private var ownerOf: [Int64: String] = [:]

    /// Rows scored per pass of the single-query scan (keeps the score buffer in L1/L2).
    static let chunkRows = 1024
    /// Database rows per gemm block in batched search.
    static let gemmRows = 4096

    public init(dimension: Int, batchGemmThreshold: Int = 8, singleKernel: ScanKernel = .simd) {
        self.dimension = dimension
        self.batchGemmThreshold = batchGemmThreshold
        self.singleKernel = singleKernel
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
                        case .simd: Kernels.dots(query: qp.baseAddress!, rows: rows, count: n, d: d, into: sp.baseAddress!)
                        case .gemv: BLAS.gemv(rows, qp.baseAddress!, sp.baseAddress!, rows: n, cols: d)
                        }
                        Self.collect(scores: sp.baseAddress!, count: n, start: start, block: block, mask: mask, exclude: exclude, into: &top)
                        start += n
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
