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
        // Where the neighbours come from (GEMM, the pending rows or vector by vector) is apart.
        var near = SeedNeighbours(pool: pool, freshCount: fresh.count, tau: tau, d: d, self)
        // Pool occurrences already taken by a clique of this call.
        var taken = Set<Int64>()
        var changed = false
        var start = 0
        while start < fresh.count {
            if isCancelled() { throw GroupingError.cancelled }
            // The next block of fresh occurrences not taken yet.
            var block: [Int64] = []
            while start < fresh.count && block.count < config.blockSize {
                if state.pending[fresh[start]] != nil { block.append(fresh[start]) }
                start += 1
            }
            if block.isEmpty { break }
            near.start(block, self)
            for (i, oid) in block.enumerated() where state.pending[oid] != nil {
                let occ = occurrences[oid]!
                // The rule: neighbours at ≥ τ_seed in order (−similarity, id), each kept only if it
                // is ≥ τ_seed to every member so far, of the kind, from a record not yet in, and
                // not cannot-linked to any of them.
                var neighbours: [(id: Int64, q: Int)] = []
                let close = near.close(row: i, occ, scope: scope, &self)
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
                    if let j = pool.sortedPosition(of: member.id) { near.take(j) }
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
}
