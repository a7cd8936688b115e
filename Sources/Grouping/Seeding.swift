import LinearAlgebra

/// Creating new groups from pending occurrences (docs/grouping-design.md, "Seeding"): cliques only, so a
/// chain A–B–C with sim(A, C) low can never become one group.
extension Workspace {
    /// Grows a clique from each fresh occurrence of `fresh` (ascending) over the pending pool of
    /// `scope`: neighbours with similarity ≥ τ_seed in order (−similarity, id), each added only if
    /// it is ≥ τ_seed to every clique member, from a record not yet in the clique, and not
    /// cannot-linked to any of them. A clique spanning ≥ 2 records becomes a new group.
    ///
    /// `loose`: the same with τ_looseSeed for τ_seed, and a clique needs `looseSeedRecords` records
    /// (three records whose every pair reaches the calibrated join thresholds: each member would
    /// join a group of the other two). An occurrence that seeds nothing this way keeps its mark as
    /// it is (assignment has evaluated it).
    mutating func seed(_ fresh: [Int64], in scope: Scope, loose: Bool = false, isCancelled: () -> Bool) throws -> Bool {
        let tau = loose ? config.tauLooseSeed : config.tauSeed
        let minRecords = loose ? max(2, config.looseSeedRecords) : 2
        let pool = scopePending(scope)
        // An occurrence that seeds nothing counts as evaluated when assignment last looked at it
        // (its certificate), not after this call: groups seeded later in this call have not been
        // offered to it yet, so the next pass offers them.
        let before = state.groupsVersion
        func evaluated(_ id: Int64) {
            if loose { return }
            state.pending[id]!.evaluatedAt = min(before, state.pending[id]!.certificate?.at ?? before)
            pendingChanged.insert(id)
        }
        guard pool.count >= 2, let d = occurrences[pool[0]]?.vector.count else {
            for id in fresh where state.pending[id] != nil { evaluated(id) }
            return false
        }
        let qSeed = config.quantise(tau)
        // A few fresh occurrences (a placement) are compared with the pool vector by vector; more
        // are worth gathering the pool into one matrix for GEMM (rows taken by new groups dropped
        // as the pass goes on).
        var poolMatrix = fresh.count >= Self.seedGEMMThreshold
            ? PoolMatrix(pool.map { occurrences.vectorOf($0)! }, d: d) : nil
        // Pool occurrences already taken by a clique of this call.
        var taken = Set<Int64>()
        var poolVectors: [[Float]] = []
        // Cheap float pre-filter; the quantised comparison below decides.
        let prefilter = tau - 1 / Float(config.scoreScale)
        var changed = false
        var start = 0
        var x: [Float] = []
        while start < fresh.count {
            if isCancelled() { throw GroupingError.cancelled }
            // The next block of fresh occurrences not taken yet.
            var block: [Int64] = []
            while start < fresh.count && block.count < config.blockSize {
                if state.pending[fresh[start]] != nil { block.append(fresh[start]) }
                start += 1
            }
            if block.isEmpty { break }
            // Pool members above the pre-filter, with their similarity, per block row.
            var closeByRow: [[(j: Int, s: Float)]] = []
            if poolMatrix != nil {
                poolMatrix!.compactIfWorthIt()
                x.removeAll(keepingCapacity: true)
                for oid in block { x.append(contentsOf: occurrences.vectorOf(oid)!) }
                let rowIndex = poolMatrix!.index
                closeByRow = poolMatrix!.score(x, count: block.count) { s in
                    let n = rowIndex.count
                    return (0..<block.count).map { i in
                        var close: [(j: Int, s: Float)] = []
                        Self.scan(UnsafeBufferPointer(rebasing: s[(i * n)..<((i + 1) * n)]), atLeast: prefilter) { c, v in
                            close.append((rowIndex[c], v))
                        }
                        return close
                    }
                }
            }
            for (i, oid) in block.enumerated() where state.pending[oid] != nil {
                let occ = occurrences[oid]!
                var neighbours: [(id: Int64, q: Int)] = []
                var close: [(j: Int, s: Float)] = []
                if poolMatrix != nil {
                    close = closeByRow[i]
                } else {
                    // A large pool is read from the scope's pending rows (one contiguous matrix, in
                    // pool order); a small one is looked up.
                    var fromRows = false
                    if pool.count >= config.blockSize {
                        var rows = takeIndex(scope)
                        defer { keepIndex(rows) }
                        var j = 0
                        fromRows = true
                        occ.vector.withUnsafeBufferPointer { x in
                            rows.forEachLive(occurrences) { id, row in
                                guard fromRows, j < pool.count, pool[j] == id else { fromRows = false; return }
                                let s = Vectors.dot(x.baseAddress!, row, count: d)
                                if s >= prefilter { close.append((j, s)) }
                                j += 1
                            }
                        }
                        if j != pool.count { fromRows = false }
                        if !fromRows { close = [] }
                    }
                    if !fromRows {
                        // Look the vectors up first (independent look-ups overlap), then compute.
                        if poolVectors.isEmpty { poolVectors = pool.map { occurrences.vectorOf($0)! } }
                        occ.vector.withUnsafeBufferPointer { x in
                            for (j, v) in poolVectors.enumerated() {
                                let s = v.withUnsafeBufferPointer { Vectors.dot(x.baseAddress!, $0.baseAddress!, count: d) }
                                if s >= prefilter { close.append((j, s)) }
                            }
                        }
                    }
                }
                for (j, s) in close {
                    let q = config.quantise(s)
                    guard q >= qSeed, pool[j] != oid, !taken.contains(pool[j]), occurrences.recordOf(pool[j]) != occ.recordID else { continue }
                    neighbours.append((pool[j], q))
                }
                neighbours.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
                var clique = [occ]
                var records: Set<String> = [occ.recordID]
                for (pid, _) in neighbours {
                    let y = occurrences[pid]!
                    guard y.recordKind == occ.recordKind, !records.contains(y.recordID), !constraints.conflicts(y.recordID, with: records),
                          clique.allSatisfy({ config.quantise(Vectors.dot($0.vector, y.vector)) >= qSeed })
                    else { continue }
                    clique.append(y)
                    records.insert(y.recordID)
                }
                guard records.count >= minRecords else {
                    evaluated(oid)
                    continue
                }
                var suggested: String?
                if judge != nil {
                    (clique, suggested) = judgeSeed(clique)
                    guard Set(clique.map(\.recordID)).count >= minRecords else {
                        evaluated(oid)
                        continue
                    }
                }
                for member in clique {
                    taken.insert(member.id)
                    if let j = pool.sortedPosition(of: member.id) { poolMatrix?.take(j) }
                }
                let gid = newGroup(scope)
                for member in clique.sorted(by: { $0.id < $1.id }) {
                    let others = clique.filter { $0.id != member.id }
                    let mean = others.map { Vectors.dot($0.vector, member.vector) }.reduce(0, +) / Float(others.count)
                    attach(member.id, to: gid, source: .automatic(score: config.quantise(mean)))
                }
                settle(gid)
                adoptSuggested(suggested, for: gid)
                changed = true
            }
        }
        return changed
    }

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

    /// Below this many fresh occurrences, seeding computes similarities vector by vector.
    static let seedGEMMThreshold = 8
}
