import LinearAlgebra

/// Where seeding's candidate neighbours come from (the clique rule itself is `Workspace.seed`, in
/// `Seeding.swift`): for a fresh occurrence, the positions in the scope's pending pool whose
/// similarity reaches a float pre-filter just below τ_seed, with that similarity. The quantised
/// comparison in the rule decides; this only saves computing what cannot pass it.
///
/// Three routes give the same similarities:
/// - many fresh occurrences: the pool gathered into one matrix (`PoolMatrix`), a block of fresh
///   occurrences scored with one GEMM, rows taken by new groups dropped as the call goes on;
/// - a few, against a large pool: the scope's pending rows (`PendingIndex`, one contiguous
///   matrix in pool order), read in place;
/// - otherwise the pool's vectors, looked up once and compared one by one.
struct SeedNeighbours {
    typealias Close = [(j: Int, s: Float)]

    let pool: [Int64]
    let prefilter: Float
    private let d: Int
    private var matrix: PoolMatrix?
    private var vectors: [[Float]] = []
    /// The current block's rows (matrix route).
    private var blockRows: [Close] = []
    private var x: [Float] = []

    /// Below this many fresh occurrences, similarities are computed vector by vector.
    static let gemmThreshold = 8

    init(pool: [Int64], freshCount: Int, tau: Float, d: Int, _ ws: Workspace) {
        self.pool = pool
        self.d = d
        prefilter = tau - 1 / Float(ws.config.scoreScale)
        matrix = freshCount >= Self.gemmThreshold ? PoolMatrix(pool.map { ws.occurrences.vectorOf($0)! }, d: d) : nil
    }

    /// Starts a block of fresh occurrences: on the matrix route, scores all of it at once.
    mutating func start(_ block: [Int64], _ ws: Workspace) {
        guard matrix != nil else { return }
        matrix!.compactIfWorthIt()
        x.removeAll(keepingCapacity: true)
        for oid in block { x.append(contentsOf: ws.occurrences.vectorOf(oid)!) }
        let rowIndex = matrix!.index, prefilter = prefilter
        blockRows = matrix!.score(x, count: block.count) { s in
            let n = rowIndex.count
            return (0..<block.count).map { i in
                var close: Close = []
                Self.scan(UnsafeBufferPointer(rebasing: s[(i * n)..<((i + 1) * n)]), atLeast: prefilter) { c, v in
                    close.append((rowIndex[c], v))
                }
                return close
            }
        }
    }

    /// The pool positions close to `occ`, row `i` of the current block.
    mutating func close(row i: Int, _ occ: Occurrence, scope: Scope, _ ws: inout Workspace) -> Close {
        if matrix != nil { return blockRows[i] }
        var close: Close = []
        if pool.count >= ws.config.blockSize, let fromRows = closeFromRows(occ, scope: scope, &ws) { return fromRows }
        // Look the vectors up first (independent look-ups overlap), then compute.
        if vectors.isEmpty { vectors = pool.map { ws.occurrences.vectorOf($0)! } }
        let d = d, prefilter = prefilter
        occ.vector.withUnsafeBufferPointer { x in
            for (j, v) in vectors.enumerated() {
                let s = v.withUnsafeBufferPointer { Vectors.dot(x.baseAddress!, $0.baseAddress!, count: d) }
                if s >= prefilter { close.append((j, s)) }
            }
        }
        return close
    }

    /// The scope's pending rows read in place, when they are the pool in pool order (nil when not).
    private func closeFromRows(_ occ: Occurrence, scope: Scope, _ ws: inout Workspace) -> Close? {
        var rows = ws.takeIndex(scope)
        defer { ws.keepIndex(rows) }
        var close: Close = []
        var j = 0, inOrder = true
        let d = d, prefilter = prefilter, pool = pool, occurrences = ws.occurrences
        occ.vector.withUnsafeBufferPointer { x in
            rows.forEachLive(occurrences) { id, row in
                guard inOrder, j < pool.count, pool[j] == id else { inOrder = false; return }
                let s = Vectors.dot(x.baseAddress!, row, count: d)
                if s >= prefilter { close.append((j, s)) }
                j += 1
            }
        }
        return inOrder && j == pool.count ? close : nil
    }

    /// Pool position `j` joined a group: the matrix route drops its row.
    mutating func take(_ j: Int) { matrix?.take(j) }

    /// Calls `found(c, v)` for each `v = values[c] >= bound`, in order; 16 values at a time are
    /// skipped with one vector compare when none reaches the bound (the usual case).
    static func scan(_ values: UnsafeBufferPointer<Float>, atLeast bound: Float, _ found: (Int, Float) -> Void) {
        let n = values.count
        guard let base = values.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        let b = SIMD16<Float>(repeating: bound)
        var c = 0
        while c + 16 <= n {
            let v = raw.loadUnaligned(fromByteOffset: c * MemoryLayout<Float>.stride, as: SIMD16<Float>.self)
            if any(v .>= b) {
                for k in 0..<16 where v[k] >= bound { found(c + k, v[k]) }
            }
            c += 16
        }
        while c < n {
            if base[c] >= bound { found(c, base[c]) }
            c += 1
        }
    }
}
