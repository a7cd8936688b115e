import LinearAlgebra

/// What a pending occurrence's certificate says after groups of its scope changed.
enum Recheck {
    /// Its decision cannot have changed: keep it pending without evaluating.
    case same
    /// Its top-K candidates follow from the certificate and the changed groups alone (no ranking
    /// over every group); decide among these (ascending), with this K-th.
    case revised([Int64], kth: (id: Int64, q: Int))
    /// Evaluate in full.
    case full
}

extension Workspace {
    /// Re-checks the certificate of pending `oid` against the groups changed since it was issued.
    /// `.same` when no group it looked at changed, no changed group shares a tag with it or scores
    /// within one quantum of its K-th candidate, and thresholds and cannot-links are the same.
    /// Otherwise `.revised` when the new top-K is certain without a full ranking (see `revise`).
    /// `vector`: the occurrence's vector when the caller has it at hand (saves a look-up).
    func recheck(_ oid: Int64, _ ctx: inout AssignContext, vector: UnsafePointer<Float>? = nil) -> Recheck {
        guard let mi = state.pending.index(forKey: oid) else { return .full }
        let mark = state.pending.values[mi]
        guard mark.evaluatedAt != nil, let cert = mark.certificate else { return .full }
        // The occurrence itself is looked up only when needed (its vector may be given).
        var at: Dictionary<Int64, Occurrence>.Index?
        func occurrence() -> Occurrence? {
            if at == nil { at = occurrences.index(forKey: oid) }
            return at.map { occurrences.values[$0] }
        }
        let stamped: Int
        if constraints.cannotLink.isEmpty, let plain = ctx.plainStamp {
            stamped = plain
        } else {
            guard let occ = occurrence() else { return .full }
            stamped = stamp(occ.recordID, ctx)
        }
        guard cert.stamp == stamped, let since = PatternState.certificateAt(mark, watermark: ctx.watermark),
              let changedGroups = ctx.changedMemoised(since: since, self, limit: Self.certificateLimit) else { return .full }
        var affected = false
        for gid in changedGroups {
            if cert.candidates.sortedPosition(of: gid) != nil {
                if !stillIneligible(gid, cert, since: since, &ctx, vector: vector, occurrence) { affected = true }
                continue
            }
            guard let p = ctx.profile(gid, self) else { continue }
            if !p.tags.isEmpty {
                guard let occ = occurrence() else { return .full }
                if occ.tags.contains(where: p.tags.contains) { return .full }
            }
            guard let kq = cert.kthScore else { return .full }
            let s: Float
            if let vector {
                s = p.unitSum.withUnsafeBufferPointer { Vectors.dot(vector, $0.baseAddress!, count: $0.count) }
            } else {
                guard let occ = occurrence() else { return .full }
                s = Vectors.dot(occ.vector, p.unitSum)
            }
            if config.quantise(s) >= kq - 1 { affected = true }
        }
        guard affected else { return .same }
        guard let occ = occurrence() else { return .full }
        return revise(occ, cert, changed: changedGroups, &ctx) ?? .full
    }

    /// True when candidate `gid`, changed since the certificate, can change neither the occurrence's
    /// candidates nor its decision: the occurrence has no tags and its certificate holds exactly its
    /// top-K; `gid` is not the K-th and still scores clearly above it (≥ kq + 1), so the top-K and
    /// the K-th stay as they were; and `gid` has kept the medoid the certificate was issued against
    /// (`medoidSince`) and the occurrence is below τ_rep of it, so the group was not eligible then
    /// and is not now (eligibility asks s_rep ≥ τ_rep first). The other candidates are unchanged or
    /// checked on their own, so the decision is the one the certificate records. (With a client or
    /// remote judge, never: its answers are not part of the certificate. The shared-element rule's
    /// are: they follow from the occurrence and the group as it is.)
    private func stillIneligible(
        _ gid: Int64, _ cert: PendingCertificate, since: Int, _ ctx: inout AssignContext, vector: UnsafePointer<Float>?,
        _ occurrence: () -> Occurrence?
    ) -> Bool {
        guard !hasOuterJudge, let kq = cert.kthScore, let kg = cert.kthGroup, kg != gid,
              cert.candidates.count == config.candidateK, medoidSince(gid) <= since,
              let occ = occurrence(), occ.tags.isEmpty, let p = ctx.profile(gid, self) else { return false }
        let x = vector
        func dot(_ w: [Float]) -> Float {
            if let x { return w.withUnsafeBufferPointer { Vectors.dot(x, $0.baseAddress!, count: $0.count) } }
            return Vectors.dot(occ.vector, w)
        }
        guard config.quantise(dot(p.unitSum)) >= kq + 1 else { return false }
        return config.quantise(dot(p.medoid)) < config.quantise(config.tauRep)
    }

    /// The new top-K of an occurrence without tags whose certificate holds exactly its old top-K T
    /// with K-th (kq, kg). Groups outside T that did not change scored below (kq, kg) and still do.
    /// The new top-K is the best K of the unchanged members of T and the changed groups, provided
    /// every changed group scores clearly above kq (≥ kq + 1: it outranks every outsider) or
    /// clearly below (≤ kq − 2: it ranks below them), and at least K remain. Otherwise nil: the
    /// (K+1)-th is unknown, or a last-bit difference could decide, so evaluate in full.
    private func revise(_ occ: Occurrence, _ cert: PendingCertificate, changed: [Int64], _ ctx: inout AssignContext) -> Recheck? {
        let k = config.candidateK
        guard occ.tags.isEmpty, let kq = cert.kthScore, cert.kthGroup != nil, cert.candidates.count == k else { return nil }
        var pool: [(id: Int64, q: Int)] = []
        pool.reserveCapacity(k + changed.count)
        for gid in cert.candidates where changed.sortedPosition(of: gid) == nil {
            guard let p = ctx.profile(gid, self) else { return nil }
            pool.append((gid, config.quantise(Vectors.dot(occ.vector, p.unitSum))))
        }
        for gid in changed {
            // A group without a representative is no candidate.
            guard let p = ctx.profile(gid, self) else { continue }
            let q = config.quantise(Vectors.dot(occ.vector, p.unitSum))
            if q >= kq + 1 {
                pool.append((gid, q))
            } else if q > kq - 2 {
                return nil
            }
        }
        guard pool.count >= k else { return nil }
        pool.sort { $0.q != $1.q ? $0.q > $1.q : $0.id < $1.id }
        let top = pool.prefix(k)
        return .revised(top.map(\.id).sorted(), kth: top.last!)
    }
}
