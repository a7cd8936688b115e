import LinearAlgebra

/// What one `assign` call knows about the groups of its scope: their ids, changes and unit
/// centroids from the workspace's `ScopeGroups` (shared, not copied), full profiles only for
/// groups that are looked at (candidates, changed groups), the tag groups only for tagged occurrences.
struct AssignContext {
    let scope: Scope
    /// Groups of the scope, ascending (at the start of the call).
    let order: [Int64]
    /// Groups with a representative, ascending, and their unit centroids as the rows of a matrix
    /// (shared with the workspace's snapshot). A group changed during the call gets its new
    /// centroid in `overrides`, or, once the matrix is the context's own (`ownMatrix`, for GEMM),
    /// written into its row.
    let live: [Int64]
    private(set) var centroids: Matrix
    private var overrides: [Int: [Float]] = [:]
    private(set) var ownMatrix = false
    /// By live index: `Workspace.touchLog.count` when the row last changed (-1: not during this
    /// call). GEMM scores computed before that are stale for the row.
    private(set) var rowChangedAt: [Int]
    let dimension: Int
    private var profiles: [Int64: GroupProfile] = [:]
    /// The profile asked for last (re-checks ask for the same changed group thousands of times).
    private var lastProfile: GroupProfile?
    private var noProfile: Set<Int64> = []
    /// The scope's tag groups (from the workspace, or gathered when first asked for).
    var tagIndex: TagIndex?
    /// (changedAt, group) of the scope's groups at the start of the call, ascending; built when a
    /// certificate is first checked.
    private var changeLog: [(at: Int, gid: Int64)]?
    private var changedQueries = 0
    static let scansBeforeSorting = 16
    let changedAtStart: [Int]
    /// Index into `Workspace.touchLog` at the start of the call.
    let touchStart: Int
    /// Thresholds part of every certificate stamp.
    let configStamp: UInt64
    /// The scope's pending watermark at the start of the call.
    let watermark: PendingWatermark?

    init(_ ws: inout Workspace, scope: Scope) {
        self.scope = scope
        profiles = ws.profileCache
        let groups = ws.scopeGroups(scope)
        order = groups.ids
        changedAtStart = groups.changedAt
        live = groups.live
        centroids = groups.centroids
        rowChangedAt = [Int](repeating: -1, count: groups.live.count)
        dimension = ws.dimension
        touchStart = ws.touchLog.count
        watermark = ws.state.checked[scope]
        if var t = ws.tagIndexes.removeValue(forKey: scope) ?? ws.engineCache?.tagIndexes.removeValue(forKey: scope) {
            t.update(ws.touchLog, ws.state, ws.occurrences)
            tagIndex = t
        }
        let c = ws.config
        var h = Stamp()
        for x in [c.quantise(c.tauRep), c.quantise(c.tauSup), c.quantise(c.delta), c.candidateK, c.exemplars, c.scoreScale] { h.mix(Int64(x)) }
        configStamp = h.value
    }

    mutating func profile(_ gid: Int64, _ ws: Workspace) -> GroupProfile? {
        if let last = lastProfile, last.id == gid { return last }
        if let p = profiles[gid] { lastProfile = p; return p }
        if noProfile.contains(gid) { return nil }
        guard let g = ws.state.groups[gid], let p = GroupProfile(g, ws.occurrences) else { noProfile.insert(gid); return nil }
        profiles[gid] = p
        return p
    }

    /// Profiles that are still current, for the workspace cache.
    var current: [Int64: GroupProfile] { profiles }

    /// Group `gid` changed (and settled): forget its profile, write its new unit centroid into its
    /// row and move its tags. (A live group stays live: its medoid is a member, never evicted.)
    mutating func invalidate(_ gid: Int64, _ ws: Workspace) {
        if lastProfile?.id == gid { lastProfile = nil }
        profiles.removeValue(forKey: gid)
        noProfile.remove(gid)
        if let j = Self.position(of: gid, in: live) {
            let u = ScopeGroups.unit(ws.state.groups[gid]!, ws.occurrences, d: dimension)
            if ownMatrix { centroids.setRow(j, u) } else { overrides[j] = u }
            rowChangedAt[j] = ws.touchLog.count
        }
        tagIndex?.set(gid, ws.state, ws.occurrences)
    }

    /// Makes the centroid matrix the context's own and current in every row (for GEMM).
    mutating func ensureCentroids() {
        guard !ownMatrix else { return }
        ownMatrix = true
        for (j, u) in overrides { centroids.setRow(j, u) }
        overrides = [:]
    }

    /// x · (current unit centroid of live group j).
    func exactScore(_ x: UnsafePointer<Float>, _ j: Int) -> Float {
        if let u = overrides[j] { return u.withUnsafeBufferPointer { Vectors.dot(x, $0.baseAddress!, count: dimension) } }
        return centroids.storage.withUnsafeBufferPointer { Vectors.dot(x, $0.baseAddress! + j * dimension, count: dimension) }
    }

    /// Index of `gid` in the ascending `ids`, if present.
    static func position(of gid: Int64, in ids: [Int64]) -> Int? {
        var lo = 0, hi = ids.count
        while lo < hi { let mid = (lo + hi) / 2; if ids[mid] < gid { lo = mid + 1 } else { hi = mid } }
        return lo < ids.count && ids[lo] == gid ? lo : nil
    }

    mutating func tags(_ ws: Workspace) -> [String: Set<Int64>] {
        if tagIndex == nil { tagIndex = TagIndex(scope, live: live, ws.state, ws.occurrences, at: ws.touchLog.count) }
        return tagIndex!.groups
    }

    /// `changed(since:)` answers by version, valid while `ws.touchLog` has `changedMemoAt` entries.
    private var changedMemo: [Int: [Int64]?] = [:]
    private var changedMemoAt = -1

    /// `changed(since:)`, remembered: pending occurrences mostly share a handful of certificate versions.
    mutating func changedMemoised(since version: Int, _ ws: Workspace, limit: Int) -> [Int64]? {
        if changedMemoAt != ws.touchLog.count { changedMemo = [:]; changedMemoAt = ws.touchLog.count; lastAsked = nil }
        if let last = lastAsked, last.version == version { return last.answer }
        let answer: [Int64]?
        if let known = changedMemo[version] { answer = known } else {
            answer = changed(since: version, ws, limit: limit)
            changedMemo[version] = answer
        }
        lastAsked = (version, answer)
        return answer
    }

    /// The last `changedMemoised` question and answer (most pending marks ask the same one).
    private var lastAsked: (version: Int, answer: [Int64]?)?

    /// The certificate stamp of an occurrence whose record is cannot-linked to none (set once).
    var plainStamp: Int?

    /// Groups of the scope changed after `version`, ascending; nil when there are more than `limit`.
    mutating func changed(since version: Int, _ ws: Workspace, limit: Int) -> [Int64]? {
        var out = Set<Int64>()
        // A few versions asked about (a placement): one scan of the start values each; many (a
        // build's later passes): sort them once and search.
        changedQueries += 1
        if changeLog == nil && changedQueries <= Self.scansBeforeSorting {
            for j in changedAtStart.indices where changedAtStart[j] > version {
                out.insert(order[j])
                if out.count > limit { return nil }
            }
        } else {
            if changeLog == nil {
                changeLog = zip(changedAtStart, order).map { (at: $0, gid: $1) }.sorted { $0.at != $1.at ? $0.at < $1.at : $0.gid < $1.gid }
            }
            let changeLog = changeLog!
            var lo = 0, hi = changeLog.count
            while lo < hi { let mid = (lo + hi) / 2; if changeLog[mid].at > version { hi = mid } else { lo = mid + 1 } }
            for e in changeLog[lo...] { out.insert(e.gid); if out.count > limit { return nil } }
        }
        for e in ws.touchLog[touchStart...] where e.at > version {
            guard ws.state.groups[e.gid]?.scope == scope else { continue }
            out.insert(e.gid)
            if out.count > limit { return nil }
        }
        return out.sorted()
    }
}

/// FNV-1a, for certificate stamps (deterministic across runs and machines).
struct Stamp {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func mix(_ x: Int64) {
        var v = UInt64(bitPattern: x)
        for _ in 0..<8 { h = (h ^ (v & 0xff)) &* 0x100_0000_01b3; v >>= 8 }
    }
    mutating func mix(_ s: String) {
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        h = (h ^ 0xff) &* 0x100_0000_01b3
    }
    var value: UInt64 { h }
}

/// The outcome of evaluating one pending occurrence: the group it joins (with its quantised
/// score) or nil, and what a certificate keeps when it stays pending.
struct Evaluation {
    var decision: (Int64, Int)?
    var candidates: [Int64]
    var kth: (id: Int64, q: Int)?
}

/// Placing pending occurrences into existing groups (docs/grouping-design.md, "Assignment").
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
        let plain = Int(truncatingIfNeeded: ctx.configStamp & 0x1F_FFFF_FFFF_FFFF)
        let reached = index?.reachable(
            work, occurrences, groups: (ctx.order, ctx.changedAtStart), unit: { ctx.profile($0, self)?.unitSum },
            watermark: ctx.watermark, plainStamp: plain, scale: config.scoreScale, maxChanged: Self.reachLimit)
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
                list = Array(list[..<n]) + work[Self.firstIndex(after: last, in: work)...]
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
                var k = Self.firstIndex(after: oid, in: needFull)
                while ids.count < config.blockSize && k < needFull.count {
                    if state.pending.index(forKey: needFull[k]) != nil { ids.append(needFull[k]) }
                    k += 1
                }
                block = ScoreBlock(ids, occurrences, centroids: ctx.centroids, at: touchLog.count)
            }
        }
        return evaluate(occurrences[oid]!, ctx: &ctx, d: d, scored: block.row(of: oid).map { (block, $0) })
    }

    /// The first position in the ascending `xs` holding a value above `x`.
    static func firstIndex<T: Comparable>(after x: T, in xs: [T]) -> Int {
        var lo = 0, hi = xs.count
        while lo < hi { let mid = (lo + hi) / 2; if xs[mid] <= x { lo = mid + 1 } else { hi = mid } }
        return lo
    }

    /// Keeps what `ctx` computed (all current: changed groups were invalidated in it) for later passes.
    mutating func keep(_ ctx: AssignContext) {
        profileCache = ctx.current
        if var t = ctx.tagIndex {
            t.update(touchLog, state, occurrences)
            tagIndexes[ctx.scope] = t
        }
    }

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
                // One GEMV against the matrix; rows changed in this call are scored exactly.
                var all = [Float](repeating: 0, count: live.count)
                all.withUnsafeMutableBufferPointer { y in
                    ctx.centroids.storage.withUnsafeBufferPointer { a in
                        BLAS.gemv(a.baseAddress!, x, y.baseAddress!, rows: live.count, cols: d)
                    }
                    for j in 0..<live.count {
                        let score = changedAt[j] >= 0 ? ctx.exactScore(x, j) : y[j]
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

    /// The decision among `candidates` (ascending), with what the certificate keeps.
    func conclude(_ occ: Occurrence, candidates: [Int64], kth: (id: Int64, q: Int)?, ctx: inout AssignContext) -> Evaluation {
        var profiles: [GroupProfile] = []
        profiles.reserveCapacity(candidates.count)
        for gid in candidates { if let p = ctx.profile(gid, self) { profiles.append(p) } }
        return Evaluation(decision: decide(occ, candidates: profiles), candidates: candidates, kth: kth)
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
        return Int(truncatingIfNeeded: h.value & 0x1F_FFFF_FFFF_FFFF)
    }

    /// The group `occ` joins, with its quantised score, or nil (no eligible group, or ambiguous).
    /// `candidates`: the profiles of the candidate groups with a representative, ids ascending.
    func decide(_ occ: Occurrence, candidates: [GroupProfile]) -> (Int64, Int)? {
        let qRep = config.quantise(config.tauRep), qSup = config.quantise(config.tauSup)
        // The best eligible candidate (highest score, then lowest id) and the runner-up's score.
        var best: (id: Int64, score: Int)?
        var runnerUp: Int?
        var sims: [Float] = []
        for p in candidates {
            guard !p.records.contains(occ.recordID), !constraints.conflicts(occ.recordID, with: p.records) else { continue }
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

    func binarySearch(_ xs: [Int64], _ x: Int64) -> Bool {
        var lo = 0, hi = xs.count
        while lo < hi { let mid = (lo + hi) / 2; if xs[mid] < x { lo = mid + 1 } else { hi = mid } }
        return lo < xs.count && xs[lo] == x
    }
}
