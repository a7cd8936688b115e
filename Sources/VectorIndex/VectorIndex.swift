import Dispatch
import Kernels
import LinearAlgebra
import Synchronization

/// Exact cosine top-k over one index version, one block of int8 codes per owner (`OwnerBlock`).
///
/// A search scans every code of the owner (a quarter of the float32 bytes) and computes, per row,
/// an approximate score and a proven bound of its distance to the float32 score (`bound`). Only the
/// rows whose upper bound reaches the k-th best lower bound can be in the top k; those few are read
/// from `rows` and scored in float32, so the result is exactly what a float32 scan returns.
/// Not thread-safe: callers serialise writes and may run reads concurrently under a read lock.
public final class VectorIndex {
    /// 0 until `settle` while the size of the vectors is not known yet (a remote provider's).
    public private(set) var dimension: Int
    /// Where the float32 rows are read back from for the final scores.
    public let rows: any ExactRows
    /// Query blocks of at least this many queries share each pass over the codes (the many-query
    /// kernel); smaller ones are scanned query by query.
    public var sharedScanQueries: Int
    /// Threads that share the first pass of one query over a large block, when no other first pass
    /// runs at the time (the float32 re-scoring of the few candidates stays on the calling thread).
    /// Concurrent searches each scan on their own thread instead: the cores are busy already, and
    /// splitting would only add hand-overs. Each row's figures are computed the same way whichever
    /// thread does it, so results do not depend on this.
    public var scanThreads: Int
    /// Blocks below this many rows are scanned on the calling thread alone.
    public var parallelScanRows: Int
    var blocks: [String: OwnerBlock] = [:]
    var ownerOf: [Int64: String] = [:]
    /// First passes running now (reads run concurrently under the caller's read lock).
    private let scanning = Atomic<Int>(0)

    /// Rows whose bounds are checked per call of the bounds kernel.
    static let chunkRows = 4096
    /// The same while fewer than k rows have a lower bound (the floor is still −∞).
    static let firstChunkRows = 256
    /// Rows per pass of the many-query kernel (their codes stay in L2 while a query block runs over them).
    static let batchRows = 2048
    /// Queries per call of the many-query kernel.
    static let batchQueries = 64
    /// Added to every bound: float32 rounding of the approximate score and of the exact score the
    /// result is ranked by (≤ d · 2⁻²⁴ for unit vectors; 2.3 · 10⁻⁵ at d = 384), with room to spare.
    static func roundingSlack(dimension: Int) -> Float { 1e-4 + Float(dimension) * 1.2e-7 }

    public init(dimension: Int, rows: any ExactRows = MemoryRows(), sharedScanQueries: Int = 8, scanThreads: Int = 1,
                parallelScanRows: Int = 32_768) {
        self.dimension = dimension
        self.rows = rows
        self.sharedScanQueries = sharedScanQueries
        self.scanThreads = max(1, scanThreads)
        self.parallelScanRows = parallelScanRows
    }

    /// Gives an index made with dimension 0 its dimension, before any row is put in.
    public func settle(dimension d: Int) {
        precondition(dimension == 0 && ownerOf.isEmpty && d > 0, "an index's dimension is fixed once, while it is empty")
        dimension = d
    }

    public var count: Int { ownerOf.count }
    public func count(owner: String) -> Int { blocks[owner]?.count ?? 0 }
    /// The owner's rows, in rowid order.
    public func rowids(owner: String) -> [Int64] { (blocks[owner]?.rowids ?? []).sorted() }
    public func contains(rowid: Int64) -> Bool { ownerOf[rowid] != nil }

    /// Inserts or replaces a row; the vector is normalised on the way in.
    public func put(owner: String, rowid: Int64, vector: [Float]) {
        precondition(vector.count == dimension, "dimension mismatch")
        if let old = ownerOf[rowid], old != owner { remove(rowid: rowid) }
        let v = Vectors.normalized(vector)
        v.withUnsafeBufferPointer { blocks[owner, default: OwnerBlock(dimension: dimension)].put(rowid: rowid, unit: $0) }
        ownerOf[rowid] = owner
        rows.didPut(rowid: rowid, vector: vector)
    }

    /// Adds many rows of one owner at once (loading from storage). `vectors` holds `rowids.count`
    /// vectors back to back; they are normalised here. Rowids already present are replaced.
    public func load(owner: String, rowids: [Int64], vectors: consuming [Float]) {
        precondition(vectors.count == rowids.count * dimension, "size mismatch")
        let d = dimension
        if rowids.contains(where: { ownerOf[$0] != nil }) || !(rows is StoredElsewhere) {
            for (i, r) in rowids.enumerated() { put(owner: owner, rowid: r, vector: Array(vectors[(i * d)..<((i + 1) * d)])) }
            return
        }
        var units = vectors
        units.withUnsafeMutableBufferPointer { buf in
            for i in 0..<rowids.count { Vectors.normalize(buf.baseAddress! + i * d, count: d) }
        }
        ownerOf.reserveCapacity(ownerOf.count + rowids.count)
        for r in rowids { ownerOf[r] = owner }
        units.withUnsafeBufferPointer { blocks[owner, default: OwnerBlock(dimension: d)].appendMany(rowids: rowids, units: $0) }
    }

    @discardableResult
    public func remove(rowid: Int64) -> Bool {
        guard let owner = ownerOf.removeValue(forKey: rowid) else { return false }
        blocks[owner]?.remove(rowid: rowid)
        if blocks[owner]?.count == 0 { blocks[owner] = nil }
        rows.didRemove(rowid: rowid)
        return true
    }

    /// The unit vector of `rowid`, read from `rows`.
    public func vector(rowid: Int64) -> [Float]? {
        guard ownerOf[rowid] != nil, let v = rows.vectors([rowid]).first ?? nil, v.count == dimension else { return nil }
        return Vectors.normalized(v)
    }

    /// The exact score `search` would give each of `rowids` for `query` (nil for a row not in the
    /// index or that `rows` no longer holds), from one read of `rows`.
    public func exactScores(query: [Float], rowids: [Int64]) -> [Float?] {
        precondition(query.count == dimension, "dimension mismatch")
        let (units, _) = unitRows(rowids.filter { ownerOf[$0] != nil })
        let unit = Vectors.normalized(query)
        var score: [Int64: Float] = [:]
        for (r, v) in units { score[r] = FloatKernels.dot(unit, v, dimension: dimension) }
        return rowids.map { score[$0] }
    }

    /// A query coded for the int8 kernels in two levels (`Int8Query`), with what its bounds need.
    struct CodedQuery {
        var unit: [Float]
        /// Both levels' codes, padded dimension each.
        var codes: [UInt8]
        /// The bounds' figures with both levels, and with the first level alone (q̂₁ = scale · (u − 128):
        /// ‖q̂₁‖ and ‖q − q̂₁‖ in place of ‖q̂‖ and ‖q − q̂‖, no second scale).
        var figures: Int8Scan.Figures
        var firstLevel: Int8Scan.Figures
    }

    func coded(_ query: [Float]) -> CodedQuery {
        precondition(query.count == dimension, "dimension mismatch")
        let unit = Vectors.normalized(query)
        let q = Int8Query(unit, dimension: dimension)
        // For a unit row x = x̂ + e and q = q̂ + r: q·x − q̂·x̂ = q̂·e + r·x, so |q·x − q̂·x̂| ≤ ‖q̂‖‖e‖ + ‖r‖
        // (with q̂ both levels or the first alone).
        let rounding = Self.roundingSlack(dimension: dimension)
        let both = Int8Scan.Figures(scale: q.scale, scale2: q.scale2, norm: Float(q.norm).nextUp, slack: Float(q.residual).nextUp + rounding)
        let first = Int8Scan.Figures(scale: q.scale, scale2: 0, norm: Float(q.firstNorm).nextUp, slack: Float(q.firstResidual).nextUp + rounding)
        return CodedQuery(unit: unit, codes: q.codes, figures: both, firstLevel: first)
    }

    /// The best `k` rows of `owner` by cosine with `query`. When `allowed` is given, only those rowids
    /// are eligible (the predicate is applied inside the scan).
    public func search(owner: String, query: [Float], k: Int, allowed: Set<Int64>? = nil, exclude: Int64? = nil) -> [ScoredRow] {
        precondition(query.count == dimension, "dimension mismatch")
        guard let block = blocks[owner], block.count > 0, k > 0 else { return [] }
        let q = coded(query)
        var arrays = ScanArrays(query: q.codes, dots: [Int32](repeating: 0, count: block.groups * 16),
                                dots2: [Int32](repeating: 0, count: block.groups * 16), mask: allowed.map { block.mask(allowing: $0) })
        return arrays.withPointers { p in
            firstPass(block: block, query: p.query, into: p.dots, p.dots2!)
            var missing: Set<Int64> = []
            let scratch = Scratch()
            var rounds = 0
            while true {
                var pick = Candidates(k: k)
                block.withView { view in
                    Self.collect(dots: p.dots, .computed(p.dots2!), rows: 0..<block.count, block: view, query: q,
                                 mask: p.mask, exclude: exclude, missing: missing, scratch: scratch, into: &pick)
                }
                let (top, gone) = rescore([pick.final()], block: block, queries: [q.unit], k: k)
                // A row deleted from the source meanwhile: its bound counted, so look again without it
                // (a few times at most: a source that cannot be read gives what it could).
                rounds += 1
                if gone.isEmpty || rounds == 4 { return top[0] }
                missing.formUnion(gone)
            }
        }
    }

    /// The first pass's figures for one row, computed as the kernels do (for tests of the bound):
    /// both levels', and the first level's alone.
    func searchApprox(owner: String, query: [Float], rowid: Int64) -> (approx: Float, bound: Float, approx1: Float, bound1: Float)? {
        guard let block = blocks[owner], let slot = block.slotOf[rowid] else { return nil }
        let q = coded(query)
        let row = block.codes.decode(slot: slot)
        var dot: Int32 = 0, dot2: Int32 = 0
        for (j, c) in row.enumerated() {
            dot += Int32(q.codes[j]) * Int32(c)
            dot2 += Int32(q.codes[block.padded + j]) * Int32(c)
        }
        let c = block.codes
        let m = 128 * c.sums[slot]
        let (f, f1) = (q.figures, q.firstLevel)
        let approx = c.scales[slot] * (f.scale * Float(dot - m) + f.scale2 * Float(dot2 - m))
        let approx1 = c.scales[slot] * (f.scale * Float(dot - m))
        return (approx, f.norm * c.errors[slot] + f.slack, approx1, f1.norm * c.errors[slot] + f1.slack)
    }

    /// Integer dot products of the coded query with every slot, shared by `scanThreads` threads on large blocks.
    /// `query` holds both levels' codes back to back.
    private func firstPass(block: OwnerBlock, query: UnsafePointer<UInt8>, into dots: UnsafeMutablePointer<Int32>, _ dots2: UnsafeMutablePointer<Int32>) {
        let groups = block.groups, dp = block.padded
        let others = scanning.add(1, ordering: .relaxed).oldValue
        defer { scanning.subtract(1, ordering: .relaxed) }
        let parts = block.count >= parallelScanRows && others == 0 ? min(scanThreads, groups) : 1
        block.codes.codes.withUnsafeBufferPointer { cp in
            if parts <= 1 {
                Int8Scan.dots2(query, query + dp, codes: cp.baseAddress!, groups: groups, padded: dp, into: dots, dots2)
            } else {
                // Contiguous group ranges, one per thread; each writes only its own figures.
                let per = (groups + parts - 1) / parts
                nonisolated(unsafe) let (qb, cb, ob, ob2) = (query, cp.baseAddress!, dots, dots2)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let start = part * per, count = min(per, groups - start)
                    if count > 0 {
                        Int8Scan.dots2(qb, qb + dp, codes: cb + start * 16 * dp, groups: count, padded: dp, into: ob + start * 16, ob2 + start * 16)
                    }
                }
            }
        }
    }

    /// Candidate slots of one query: the k best lower bounds seen so far, and every slot whose upper
    /// bound reached the k-th of them when it was seen.
    struct Candidates {
        var lower: LowerBounds
        var slots: [Int32] = []
        var uppers: [Float] = []
        init(k: Int) { lower = LowerBounds(k: k) }

        /// The slots whose upper bound reaches the final k-th lower bound, highest upper bound first.
        func final() -> Picked {
            let floor = lower.kth
            let kept = zip(slots, uppers).filter { $0.1 >= floor }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
            return Picked(slots: kept.map(\.0), uppers: kept.map(\.1))
        }
    }

    /// One query's candidates for re-scoring, highest upper bound first.
    struct Picked {
        var slots: [Int32]
        var uppers: [Float]
    }

    /// Buffers of the bounds kernel, reused across calls (allocated once per scan, freed when the
    /// scan lets go of it).
    final class Scratch {
        let idx = UnsafeMutablePointer<UInt32>.allocate(capacity: VectorIndex.chunkRows)
        let up = UnsafeMutablePointer<Float>.allocate(capacity: VectorIndex.chunkRows)
        let lo = UnsafeMutablePointer<Float>.allocate(capacity: VectorIndex.chunkRows)
        deinit {
            idx.deallocate()
            up.deallocate()
            lo.deallocate()
        }
    }

    /// Where the second query level's dots come from.
    enum SecondLevel {
        /// Computed for every row in the same pass as the first level's (`Int8Scan.dots2`).
        case computed(UnsafePointer<Int32>)
        /// Computed here from the query's second-level codes, only for the rows whose first-level bound
        /// (looser: the first level's residual counts whole) reaches the k-th best lower bound so far
        /// (`Int8Scan.refine`).
        case onDemand(UnsafePointer<UInt8>)
    }

    /// Feeds the bounds of `rows` (slots of `block`; `dots` starts at slot `rows.lowerBound`) into `pick`.
    static func collect(dots: UnsafePointer<Int32>, _ second: SecondLevel, rows: Range<Int>, block: BlockView, query q: CodedQuery,
                        mask: UnsafePointer<Bool>?, exclude: Int64?, missing: Set<Int64>, scratch: Scratch, into pick: inout Candidates) {
        let kept = Int8Scan.Kept(index: scratch.idx, upper: scratch.up, lower: scratch.lo)
        let (idx, up, lo) = (scratch.idx, scratch.up, scratch.lo)
        var start = rows.lowerBound
        while start < rows.upperBound {
            // Small chunks until k rows have a lower bound: the floor rises after the first few
            // hundred rows instead of after thousands.
            let n = min(pick.lower.kth == -.infinity ? firstChunkRows : chunkRows, rows.upperBound - start)
            let off = start - rows.lowerBound
            let found: Int
            switch second {
            case .computed(let dots2):
                found = Int8Scan.bounds(dots: dots + off, dots2 + off, count: n, rows: block.rows, first: start, query: q.figures, floor: pick.lower.kth,
                                        into: kept)
            case .onDemand(let level2):
                // A row whose first-level upper bound is below a proven lower bound of the k-th best
                // score cannot be in the top k; the rest get both levels' bounds.
                found = Int8Scan.bounds(dots: dots + off, dots + off, count: n, rows: block.rows, first: start, query: q.firstLevel, floor: pick.lower.kth,
                                        into: kept)
                Int8Scan.refine(level2, rows: block.rows, first: start, dots: dots + off, count: found, query: q.figures, kept: kept)
            }
            for f in 0..<found {
                let slot = start + Int(idx[f])
                if let mask, !mask[slot] { continue }
                let rowid = block.rowids[slot]
                if rowid == exclude || (!missing.isEmpty && missing.contains(rowid)) { continue }
                pick.lower.offer(lo[f])
                if up[f] >= pick.lower.kth {
                    pick.slots.append(Int32(slot))
                    pick.uppers.append(up[f])
                }
            }
            start += n
        }
    }

    /// Float32 scores of each query's candidate slots, read from `rows` once for all the queries;
    /// returns the top k of each and the rowids the source no longer holds.
    /// The unit float32 rows of `rowids`, read from `rows` in one go, and the rowids it no longer holds.
    private func unitRows(_ rowids: [Int64]) -> (units: [Int64: [Float]], gone: Set<Int64>) {
        var units: [Int64: [Float]] = [:]
        units.reserveCapacity(rowids.count)
        var gone: Set<Int64> = []
        for (r, v) in zip(rowids, rows.vectors(rowids)) {
            if let v, v.count == dimension { units[r] = Vectors.normalized(v) } else { gone.insert(r) }
        }
        return (units, gone)
    }

    /// Float32 scores of each query's candidates, read from `rows` for all the queries at once, in
    /// two rounds: first each query's k candidates with the highest upper bounds; then, of the rest,
    /// only those whose upper bound reaches the k-th exact score found so far (a row below it cannot
    /// be in the top k, and a row at it may tie). Returns the top k of each and the rowids the source
    /// no longer holds.
    private func rescore(_ picks: [Picked], block: OwnerBlock, queries: [[Float]], k: Int) -> ([[ScoredRow]], Set<Int64>) {
        var tops = picks.map { _ in TopK(k: k) }
        var next = picks.map { _ in 0 }
        var gone: Set<Int64> = []
        let d = dimension
        for round in 0..<2 {
            var wanted: [Int64] = []
            var seen: Set<Int32> = []
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(picks.count)
            for (i, p) in picks.enumerated() {
                var end = next[i]
                if round == 0 {
                    end = min(p.slots.count, k)
                } else {
                    let floor = tops[i].threshold
                    while end < p.slots.count && p.uppers[end] >= floor { end += 1 }
                }
                ranges.append(next[i]..<end)
                next[i] = end
                for s in p.slots[ranges[i]] where seen.insert(s).inserted { wanted.append(block.rowids[Int(s)]) }
            }
            if wanted.isEmpty { continue }
            let (unit, missing) = unitRows(wanted)
            gone.formUnion(missing)
            for (i, q) in queries.enumerated() {
                for s in picks[i].slots[ranges[i]] {
                    let rowid = block.rowids[Int(s)]
                    guard let v = unit[rowid] else { continue }
                    tops[i].offer(ScoredRow(rowid: rowid, score: FloatKernels.dot(q, v, dimension: d)))
                }
            }
        }
        return (tops.map { $0.sorted() }, gone)
    }

    /// Top-k for many queries. From `sharedScanQueries` queries on, blocks of queries share each
    /// pass over the codes (`Int8Scan.dotsMany`); below it, each query is scanned on its own.
    public func searchBatch(owner: String, queries: [[Float]], k: Int, allowed: Set<Int64>? = nil) -> [[ScoredRow]] {
        guard let block = blocks[owner], block.count > 0, k > 0, !queries.isEmpty else { return queries.map { _ in [] } }
        if queries.count < sharedScanQueries {
            return queries.map { search(owner: owner, query: $0, k: k, allowed: allowed) }
        }
        let coded = queries.map { self.coded($0) }
        let dp = block.padded, nq = coded.count
        // Every query's first level, back to back: the shared pass computes only those; the second
        // level is computed for the few rows each query's first-level bounds keep.
        let perCall = Self.batchQueries
        var level1 = [UInt8](), level2 = [UInt8]()
        level1.reserveCapacity(nq * dp)
        level2.reserveCapacity(nq * dp)
        for q in coded {
            level1.append(contentsOf: q.codes[0..<dp])
            level2.append(contentsOf: q.codes[dp..<(2 * dp)])
        }
        var picks = (0..<nq).map { _ in Candidates(k: k) }
        let rowsPer = Self.batchRows
        let scratch = Scratch()
        var arrays = ScanArrays(query: level1, second: level2, dots: [Int32](repeating: 0, count: perCall * rowsPer),
                                mask: allowed.map { block.mask(allowing: $0) })
        arrays.withPointers { p in
            block.withView { view in
                var start = 0
                while start < block.count {
                    let n = min(rowsPer, block.count - start)
                    let groups = (n + 15) / 16
                    var q0 = 0
                    while q0 < nq {
                        let m = min(perCall, nq - q0)
                        Int8Scan.dotsMany(p.query + q0 * dp, queries: m, codes: view.rows.codes + start * dp, groups: groups, padded: dp, into: p.dots)
                        for i in 0..<m {
                            Self.collect(dots: p.dots + i * groups * 16, .onDemand(p.second! + (q0 + i) * dp),
                                         rows: start..<(start + n), block: view, query: coded[q0 + i],
                                         mask: p.mask, exclude: nil, missing: [], scratch: scratch, into: &picks[q0 + i])
                        }
                        q0 += m
                    }
                    start += n
                }
            }
        }
        // Float32 scores, a block of queries at a time (bounded memory for the fetched rows).
        var out: [[ScoredRow]] = []
        out.reserveCapacity(nq)
        var q0 = 0
        while q0 < nq {
            let m = min(perCall, nq - q0)
            let (top, gone) = rescore(picks[q0..<(q0 + m)].map { $0.final() }, block: block, queries: coded[q0..<(q0 + m)].map(\.unit), k: k)
            if gone.isEmpty {
                out.append(contentsOf: top)
            } else {
                for i in q0..<(q0 + m) { out.append(search(owner: owner, query: queries[i], k: k, allowed: allowed)) }
            }
            q0 += m
        }
        return out
    }
}

/// A source whose rows are read from elsewhere (not kept by the index's `didPut`): bulk loads skip
/// the per-row hand-over.
public protocol StoredElsewhere {}

/// The k largest values offered so far; `kth` is the smallest of them (−∞ until k were offered).
struct LowerBounds {
    /// A value, larger first.
    struct Bound: BestFirst {
        var value: Float
        @inline(__always)
        static func better(_ a: Bound, _ b: Bound) -> Bool { a.value > b.value }
    }

    private var heap: BoundedHeap<Bound>
    init(k: Int) { heap = BoundedHeap(k: k) }

    var kth: Float { heap.isFull ? heap.worst?.value ?? .infinity : -.infinity }

    mutating func offer(_ v: Float) { heap.offer(Bound(value: v)) }
}
