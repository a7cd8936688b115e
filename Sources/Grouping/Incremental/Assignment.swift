import LinearAlgebra

/// The assignment pass: placing the pending occurrences of a scope one at a time in order, each by
/// the join rule (`JoinRule.swift`), with certificates so that an occurrence nothing can have changed
/// for is not evaluated again (docs/grouping-design.md, "Assignment").
extension Workspace {
    /// Changed groups a certificate is checked against one by one; beyond this, evaluate in full.
    static let certificateLimit = 32
    /// From this many full evaluations on, candidates are scored by GEMM against a matrix of centroids.
    static let centroidGEMMThreshold = 8
    /// Changed groups the pending index follows one by one; beyond this, every mark is re-checked.
    static let reachLimit = 8

    /// Evaluates `work` (pending, ascending) against the groups of `scope`, one at a time in order.
    /// An occurrence whose certificate shows that no group it looked at changed, and no changed
    /// group enters its candidates, keeps its decision (pending) without a full evaluation. Full
    /// evaluations score candidates by one GEMM per block (pending × unit centroids); groups changed
    /// after a block was scored are re-scored exactly, so the outcome equals one-at-a-time processing.
    /// Returns true when any membership changed.
    /// `lastChange`: the scope's last group change when the pass began; `work` holds every evaluated
    /// pending occurrence of the scope evaluated before it. Those that keep their decision without
    /// any change meanwhile are not written: the scope's watermark moves instead (`PendingWatermark`).
    mutating func assign(_ work: [Int64], in scope: Scope, lastChange: Int, isCancelled: () -> Bool) throws -> Bool {
        guard let d = occurrences.vectorOf(work.first ?? -1)?.count else { return false }
        var ctx = AssignContext(&self, scope: scope)
        guard !ctx.live.isEmpty else { return false }
        ctx.plainStamp = constraints.cannotLink.isEmpty ? stamp("", ctx) : nil
        var changed = false
        // Many to re-check (after a placement, every pending occurrence of the scope): the pending
        // index names those a change can reach; the others give `.same` as of the start.
        var index = work.count >= config.blockSize ? takeIndex(scope) : nil
        defer { if let index { keepIndex(index) } }
        let plain = Int(truncatingIfNeeded: ctx.configStamp & Stamp.storedMask)
        let reached = index?.reachable(
            work, occurrences, groups: (ctx.order, ctx.changedAtStart), unit: { ctx.profile($0, self)?.unitSum },
            watermark: ctx.watermark, plainStamp: plain, scale: config.scoreScale, maxChanged: Self.reachLimit,
            ineligibleBelow: hasOuterJudge ? nil : config.quantise(config.tauRep),
            medoid: { gid in ctx.profile(gid, self).map { ($0.medoid, self.medoidSince(gid)) } })
        var list = reached ?? work
        // Which occurrences need a full evaluation as of the start; their rows are scored by GEMM in
        // blocks of `blockSize` as they come. A re-check is repeated after any change.
        var atStart: [Recheck] = []
        atStart.reserveCapacity(list.count)
        var needFull: [Int64] = []
        for oid in list {
            let r = recheck(oid, &ctx, vector: index?.vector(of: oid))
            if case .full = r { needFull.append(oid) }
            atStart.append(r)
        }
        let useGEMM = needFull.count >= Self.centroidGEMMThreshold
        let versionAtStart = state.groupsVersion
        // Whether the scope's watermark moves at the end (see below).
        let watermarkMoves = (state.checked[scope]?.at ?? Int.min) < lastChange
        var block = ScoreBlock()
        var everyOne = reached == nil
        var n = -1
        while n + 1 < list.count {
            n += 1
            let oid = list[n]
            if !everyOne && state.groupsVersion != versionAtStart {
                // A group changed in this pass: from here on every occurrence of the work is
                // re-checked as it comes (and written), not only those reached at the start.
                let last = list[n - 1]
                list = Array(list[..<n]) + work[work.firstPosition(above: last)...]
                everyOne = true
                n -= 1
                continue
            }
            // (An earlier occurrence's group change may have evicted or placed this one.)
            guard let pi = state.pending.index(forKey: oid) else { continue }
            if n % config.blockSize == 0, isCancelled() { throw GroupingError.cancelled }
            // Nothing changed since the start: the answer from then still holds.
            let r = state.groupsVersion == versionAtStart ? atStart[n] : recheck(oid, &ctx)
            if case .same = r {
                // Same candidates, same profiles: the decision is unchanged. As of the start, the
                // watermark says so (set below); after a change, the mark is written.
                if state.groupsVersion != versionAtStart || state.pending.values[pi].scope != scope {
                    state.pending.values[pi].evaluatedAt = state.groupsVersion
                    state.pending.values[pi].certificate!.at = state.groupsVersion
                    pendingChanged.insert(oid)
                }
                continue
            }
            let occ = occurrences[oid]!
            var e: Evaluation
            switch r {
            case .same:
                continue
            case let .revised(candidates, kth):
                e = conclude(occ, candidates: candidates, kth: kth, ctx: &ctx)
            case .full:
                e = evaluateFully(oid, needFull: needFull, useGEMM: useGEMM, block: &block, ctx: &ctx, d: d)
            }
            // (A join that would push a member out is not made: `JoinStay.swift`.)
            if let (gid, _) = e.decision, !joinKeepsMembers(oid, gid) { e.decision = nil }
            var suggested: String?
            if judge != nil, e.decision != nil { (e.decision, suggested) = judged(occ, e, ctx: &ctx) }
            guard let (gid, score) = e.decision else {
                let cert = PendingCertificate(
                    at: state.groupsVersion, candidates: e.candidates, kthScore: e.kth?.q, kthGroup: e.kth?.id,
                    stamp: stamp(occ.recordID, ctx))
                // The same certificate again before any change in this pass: as for `.same`, the
                // watermark set below says so (the mark is evaluated before `lastChange`).
                let mark = state.pending[oid]!
                if state.groupsVersion == versionAtStart, watermarkMoves, mark.scope == scope,
                   let old = mark.certificate, let was = mark.evaluatedAt, was < lastChange,
                   old.candidates == cert.candidates, old.kthScore == cert.kthScore, old.kthGroup == cert.kthGroup, old.stamp == cert.stamp {
                    continue
                }
                // Fresh occurrences stay fresh until seeding has looked at them too.
                let at = state.pending[oid]!.evaluatedAt == nil ? nil : state.groupsVersion
                state.pending[oid]!.evaluatedAt = at
                state.pending[oid]!.certificate = cert
                pendingChanged.insert(oid)
                continue
            }
            attach(oid, to: gid, source: .automatic(score: score))
            assigned += 1
            settle(gid)
            adoptSuggested(suggested, for: gid)
            changed = true
            ctx.invalidate(gid, self)
        }
        // Every evaluated mark of the scope evaluated before `lastChange` was in `work`: the ones
        // not written above are current as of the start. (A watermark at or above `lastChange`
        // covers none of them: nothing of the scope changed since it was set.)
        if watermarkMoves {
            state.checked[scope] = PendingWatermark(below: lastChange, at: versionAtStart)
        }
        keep(ctx)
        return changed
    }

    /// Full evaluation of `oid`. One or a few occurrences (a placement) are scored against the
    /// centroids directly; more are worth a matrix of centroids and a GEMM per block: this
    /// occurrence and the next ones that needed a full evaluation at the start (`needFull`).
    private func evaluateFully(
        _ oid: Int64, needFull: [Int64], useGEMM: Bool, block: inout ScoreBlock, ctx: inout AssignContext, d: Int
    ) -> Evaluation {
        if useGEMM {
            ctx.ensureCentroids()
            if block.row(of: oid) == nil {
                var ids = [oid]
                var k = needFull.firstPosition(above: oid)
                while ids.count < config.blockSize && k < needFull.count {
                    if state.pending.index(forKey: needFull[k]) != nil { ids.append(needFull[k]) }
                    k += 1
                }
                block = ScoreBlock(ids, occurrences, centroids: ctx.centroids, at: touchLog.count)
            }
        }
        return evaluate(occurrences[oid]!, ctx: &ctx, d: d, scored: block.row(of: oid).map { (block, $0) })
    }

    /// Keeps what `ctx` computed (all current: changed groups were invalidated in it) for later passes.
    mutating func keep(_ ctx: AssignContext) {
        derived.profiles = ctx.current
        if var t = ctx.tagIndex {
            t.update(touchLog, state, occurrences)
            derived.tagIndexes[ctx.scope] = t
        }
    }

    /// The judge's say on `e.decision`: a yes keeps it (with a suggested label); a no takes the
    /// next eligible candidate and asks again; no answer leaves the occurrence pending.
    mutating func judged(_ occ: Occurrence, _ e: Evaluation, ctx: inout AssignContext) -> ((Int64, Int)?, String?) {
        var candidates = e.candidates
        var decision = e.decision
        while let (gid, _) = decision {
            switch ask(occ.id, group: gid) {
            case .yes(let label):
                return (decision, label)
            case .no:
                candidates.removeAll { $0 == gid }
                decision = conclude(occ, candidates: candidates, kth: e.kth, ctx: &ctx).decision
            case .unknown:
                return (nil, nil)
            }
        }
        return (nil, nil)
    }

    /// Gives a certificate to the pending occurrences of `scope` that were last looked at by
    /// seeding alone (evaluated, no certificate) and that a full evaluation leaves pending. Nothing
    /// else changes: one that would join a group keeps no certificate and is evaluated in full
    /// after the next change, as before.
    mutating func certify(_ scope: Scope, isCancelled: () -> Bool) throws {
        // Evaluated, without a certificate.
        let index = takeIndex(scope)
        let todo = index.uncertified
        keepIndex(index)
        guard !todo.isEmpty else { return }
        let d = dimension
        var ctx = AssignContext(&self, scope: scope)
        guard !ctx.live.isEmpty else { return }
        let useGEMM = todo.count >= Self.centroidGEMMThreshold
        if useGEMM { ctx.ensureCentroids() }
        var start = 0
        while start < todo.count {
            if isCancelled() { throw GroupingError.cancelled }
            let block = Array(todo[start..<min(start + config.blockSize, todo.count)])
            start += block.count
            let scores = useGEMM ? ScoreBlock(block, occurrences, centroids: ctx.centroids, at: touchLog.count) : nil
            for (i, oid) in block.enumerated() {
                let occ = occurrences[oid]!
                let e = evaluate(occ, ctx: &ctx, d: d, scored: scores.map { ($0, i) })
                guard e.decision == nil else { continue }
                state.pending[oid]!.certificate = PendingCertificate(
                    at: state.groupsVersion, candidates: e.candidates, kthScore: e.kth?.q, kthGroup: e.kth?.id,
                    stamp: stamp(occ.recordID, ctx))
                pendingChanged.insert(oid)
            }
        }
        keep(ctx)
    }

    /// Certificate stamp: thresholds and the records `record` is cannot-linked to.
    func stamp(_ record: String, _ ctx: AssignContext) -> Int {
        if constraints.cannotLink.isEmpty, let plain = ctx.plainStamp { return plain }
        var h = Stamp()
        h.h = ctx.configStamp
        if !constraints.cannotLink.isEmpty, let apart = constraints.apart(from: record) { for r in apart.sorted() { h.mix(r) } }
        return h.stored
    }
}
