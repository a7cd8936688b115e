import LinearAlgebra

/// Placing pending occurrences into existing groups (grouping.md, "Assignment").
extension Workspace {
    /// Evaluates `work` (pending, ascending) against the groups of `scope`. Candidate groups are
    /// proposed by one GEMM per block (pending × unit centroids); groups changed inside the block
    /// are re-scored exactly, so the outcome equals one-at-a-time processing. Returns true when
    /// any membership changed.
    mutating func assign(_ work: [Int64], in scope: Scope, isCancelled: () -> Bool) throws -> Bool {
        let order = groups(in: scope)
        var profiles: [Int64: GroupProfile] = [:]
        var tagIndex: [String: Set<Int64>] = [:]
        for gid in order {
            guard let p = GroupProfile(state.groups[gid]!, occurrences) else { continue }
            profiles[gid] = p
            for t in p.tags { tagIndex[t, default: []].insert(gid) }
        }
        let live = order.filter { profiles[$0] != nil }
        guard !live.isEmpty, let d = occurrences[work.first ?? -1]?.vector.count else { return false }
        let centroids = Matrix(rows: live.count, cols: d, storage: live.flatMap { profiles[$0]!.unitSum })
        var stale = Set<Int64>()
        var changed = false
        var start = 0
        while start < work.count {
            if isCancelled() { throw GroupingError.cancelled }
            let block = Array(work[start..<min(start + config.blockSize, work.count)])
            start += block.count
            let x = Matrix(rows: block.count, cols: d, storage: block.flatMap { occurrences[$0]!.vector })
            let scores = x.timesTransposed(centroids)
            for (i, oid) in block.enumerated() where state.pending[oid] != nil {
                let occ = occurrences[oid]!
                // Top-K by quantised centroid similarity, ties to the lowest id.
                var ranked: [(id: Int64, q: Int)] = []
                for (j, gid) in live.enumerated() {
                    guard let p = profiles[gid] else { continue }
                    let s = stale.contains(gid) ? Vectors.dot(occ.vector, p.unitSum) : scores[i, j]
                    ranked.append((gid, config.quantise(s)))
                }
                var candidates = Set(topK(ranked, config.candidateK))
                for t in occ.tags { candidates.formUnion(tagIndex[t] ?? []) }
                let decision = decide(occ, candidates: candidates.sorted(), profiles: profiles)
                guard let (gid, score) = decision else {
                    // Fresh occurrences stay fresh until seeding has looked at them too.
                    if state.pending[oid]!.evaluatedAt != nil { state.pending[oid] = PendingMark(evaluatedAt: state.groupsVersion) }
                    continue
                }
                attach(oid, to: gid, source: .automatic(score: score))
                assigned += 1
                settle(gid)
                changed = true
                stale.insert(gid)
                if let old = profiles[gid] { for t in old.tags { tagIndex[t]?.remove(gid) } }
                profiles[gid] = GroupProfile(state.groups[gid]!, occurrences)
                if let new = profiles[gid] { for t in new.tags { tagIndex[t, default: []].insert(gid) } }
            }
        }
        return changed
    }

    /// The group `occ` joins, with its quantised score, or nil (no eligible group, or ambiguous).
    func decide(_ occ: Occurrence, candidates: [Int64], profiles: [Int64: GroupProfile]) -> (Int64, Int)? {
        let qRep = config.quantise(config.tauRep), qSup = config.quantise(config.tauSup)
        var eligible: [(id: Int64, score: Int)] = []
        for gid in candidates {
            guard let p = profiles[gid], !p.records.contains(occ.recordID),
                  !constraints.conflicts(occ.recordID, with: p.records) else { continue }
            let sRep = Vectors.dot(occ.vector, p.medoid)
            guard config.quantise(sRep) >= qRep else { continue }
            let sims = p.exemplars.filter { $0.record != occ.recordID }
                .map { Vectors.dot(occ.vector, $0.vector) }.sorted(by: >)
            let m = min(config.exemplars, p.records.count, sims.count)
            guard m > 0 else { continue }
            let sSup = sims.prefix(m).reduce(0, +) / Float(m)
            guard config.quantise(sSup) >= qSup else { continue }
            eligible.append((gid, config.quantise((sRep + sSup) / 2)))
        }
        eligible.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        guard let best = eligible.first else { return nil }
        if eligible.count > 1, best.score - eligible[1].score < config.quantise(config.delta) { return nil }
        return (best.id, best.score)
    }

    /// The `k` best ids by (−q, id).
    private func topK(_ ranked: [(id: Int64, q: Int)], _ k: Int) -> [Int64] {
        guard k > 0 else { return [] }
        var best: [(id: Int64, q: Int)] = []
        func better(_ a: (id: Int64, q: Int), _ b: (id: Int64, q: Int)) -> Bool { a.q != b.q ? a.q > b.q : a.id < b.id }
        for r in ranked {
            if best.count == k, !better(r, best[k - 1]) { continue }
            let at = best.firstIndex { better(r, $0) } ?? best.count
            best.insert(r, at: at)
            if best.count > k { best.removeLast() }
        }
        return best.map(\.id)
    }
}
