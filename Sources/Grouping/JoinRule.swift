import LinearAlgebra

/// Where one pending occurrence goes (docs/grouping-design.md, "Assignment"), read top-down:
/// `evaluate` proposes the candidate groups (top-K by centroid, plus groups sharing a tag),
/// `conclude` gathers their profiles, `decide` applies the join rule (s_rep, s_sup, distinct
/// record, no cannot-link, best by score, ties to the lowest id, margin δ over the runner-up), and
/// the pass then makes the join only if it pushes no member out (`JoinStay.swift`). The pass
/// around it, and what it keeps to be cheap, are in `Assignment.swift` and `AssignContext.swift`.

/// The outcome of evaluating one pending occurrence: the group it joins (with its quantised
/// score) or nil, and what a certificate keeps when it stays pending.
struct Evaluation {
    var decision: (Int64, Int)?
    var candidates: [Int64]
    var kth: (id: Int64, q: Int)?
}

extension Workspace {
    /// Full evaluation of `occ` against the live groups of the context: top-K by quantised centroid
    /// similarity (ties to the lowest id; `scored` gives GEMM scores by live index, and groups changed
    /// since they were computed are re-scored exactly) plus tag-sharing groups, then `decide`.
    func evaluate(_ occ: Occurrence, ctx: inout AssignContext, d: Int, scored: (block: ScoreBlock, row: Int)?) -> Evaluation {
        var top = TopCandidates(k: config.candidateK, scale: config.scoreScale)
        let live = ctx.live, changedAt = ctx.rowChangedAt
        occ.vector.withUnsafeBufferPointer { v in
            let x = v.baseAddress!
            if let (block, r) = scored {
                // GEMM scores, stale for rows changed after the block was scored.
                block.scores.storage.withUnsafeBufferPointer { s in
                    let row = s.baseAddress! + r * live.count
                    for j in 0..<live.count {
                        let score = changedAt[j] > block.at ? ctx.exactScore(x, j) : row[j]
                        if top.admits(score) { top.offer(live[j], config.quantise(score)) }
                    }
                }
            } else {
                // One pass over the unit centroids on this thread (a placement's one product is
                // too small to be worth waking BLAS threads); rows changed in this call from
                // their new centroid.
                ctx.centroids.storage.withUnsafeBufferPointer { a in
                    for j in 0..<live.count {
                        let score = changedAt[j] >= 0 ? ctx.exactScore(x, j) : Vectors.dot(x, a.baseAddress! + j * d, count: d)
                        if top.admits(score) { top.offer(live[j], config.quantise(score)) }
                    }
                }
            }
        }
        let best = top.best
        var candidates = Set(best.map(\.id))
        if !occ.tags.isEmpty {
            let index = ctx.tags(self)
            for t in occ.tags { candidates.formUnion(index[t] ?? []) }
        }
        let kth = best.count == config.candidateK ? best.last : nil
        return conclude(occ, candidates: candidates.sorted(), kth: kth, ctx: &ctx)
    }

    /// The decision among `candidates` (ascending), with what the certificate keeps.
    func conclude(_ occ: Occurrence, candidates: [Int64], kth: (id: Int64, q: Int)?, ctx: inout AssignContext) -> Evaluation {
        var profiles: [GroupProfile] = []
        profiles.reserveCapacity(candidates.count)
        for gid in candidates { if let p = ctx.profile(gid, self) { profiles.append(p) } }
        return Evaluation(decision: decide(occ, candidates: profiles), candidates: candidates, kth: kth)
    }

    /// The group `occ` joins, with its quantised score, or nil (no eligible group, or ambiguous).
    /// `candidates`: the profiles of the candidate groups with a representative, ids ascending.
    func decide(_ occ: Occurrence, candidates: [GroupProfile]) -> (Int64, Int)? {
        // A record a person dismissed from a group needs clearer evidence.
        let margin = constraints.dismissed.contains(occ.recordID) ? config.dismissedMargin : 0
        let qRep = config.quantise(config.tauRep + margin), qSup = config.quantise(config.tauSup + margin)
        // The best eligible candidate (highest score, then lowest id) and the runner-up's score.
        var best: (id: Int64, score: Int)?
        var runnerUp: Int?
        var sims: [Float] = []
        for p in candidates {
            guard p.kind == occ.recordKind, !p.records.contains(occ.recordID), !constraints.conflicts(occ.recordID, with: p.records)
            else { continue }
            let sRep = Vectors.dot(occ.vector, p.medoid)
            guard config.quantise(sRep) >= qRep else { continue }
            // s_sup: the mean of the top m similarities to the examples of other records.
            sims.removeAll(keepingCapacity: true)
            for e in p.exemplars where e.record != occ.recordID { sims.append(Vectors.dot(occ.vector, e.vector)) }
            sims.sort(by: >)
            let m = min(config.exemplars, p.records.count, sims.count)
            guard m > 0 else { continue }
            let sSup = sims.prefix(m).reduce(0, +) / Float(m)
            guard config.quantise(sSup) >= qSup else { continue }
            let score = config.quantise((sRep + sSup) / 2)
            if let b = best, score < b.score || (score == b.score && p.id > b.id) {
                runnerUp = max(runnerUp ?? score, score)
            } else {
                if let b = best { runnerUp = b.score }
                best = (p.id, score)
            }
        }
        guard let best else { return nil }
        if let runnerUp, best.score - runnerUp < config.quantise(config.delta) { return nil }
        return (best.id, best.score)
    }
}
