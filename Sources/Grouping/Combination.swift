import LinearAlgebra

/// Combining two groups that describe one situation (docs/grouping-design.md, "Granularity").
///
/// Seeding makes small groups from cliques, so one situation can start as several groups. Two
/// active groups of one category are combined when they support each other both ways — every
/// example of each (its medoid and supporting examples) would be accepted by the other's
/// representative and examples (s_rep ≥ τ_rep, s_sup ≥ τ_sup, as an occurrence joining) — and
/// the mean similarity over all pairs of their members (average linkage, Sa · Sb / (na nb)) is at
/// least `tauCombine`. It is never a chain: the groups' own members decide, not a path. Further:
/// - no record of one is cannot-linked to a record of the other;
/// - the younger (higher id) holds no pinned or moved member (a group a user shaped stays as left);
/// - no automatic member of either would fall below `tauStay` of the combined medoid (so no pair
///   that was together is pulled apart).
/// The older id survives; the younger's members move into it (one whose record the older already
/// holds goes to pending, evaluated: it may join another group but seeds none) and the younger stays empty with `mergedInto` naming the survivor.
extension Workspace {
    /// Combines the active groups of `scope` changed after `since` with partners until none has
    /// one: the lowest id waiting is taken next; a group is combined with its best partner among
    /// its top-K groups by centroid similarity (best by quantised mean pair similarity, ties to the
    /// lowest id);
    /// the survivor waits again.
    mutating func combine(_ scope: Scope, since: Int) -> Bool {
        // (With a judge, no membership is made without its yes: groups are combined only by a merge correction.)
        guard config.tauCombine <= 1, judge == nil else { return false }
        var waiting = Set<Int64>()
        do {
            // (Not kept: a snapshot held here would make every later update copy its matrix.)
            let groups = scopeGroups(scope)
            for (i, gid) in groups.ids.enumerated() where groups.changedAt[i] > since { waiting.insert(gid) }
        }
        var changed = false
        while let x = waiting.min() {
            waiting.remove(x)
            guard state.groups[x]?.state == .active, let p = bestPartner(x, scope) else { continue }
            let (old, young) = x < p ? (x, p) : (p, x)
            absorb(young, into: old)
            waiting.remove(young)
            waiting.insert(old)
            changed = true
        }
        return changed
    }

    /// The group `x` combines with, if any.
    mutating func bestPartner(_ x: Int64, _ scope: Scope) -> Int64? {
        let groups = scopeGroups(scope)
        guard let xi = ScopeGroups.search(x, in: groups.live).1 ? ScopeGroups.search(x, in: groups.live).0 : nil,
              let px = GroupProfile(state.groups[x]!, occurrences) else { return nil }
        let d = dimension
        var top = TopCandidates(k: config.candidateK, scale: config.scoreScale)
        groups.centroids.storage.withUnsafeBufferPointer { c in
            let base = c.baseAddress!
            for (j, gid) in groups.live.enumerated() where j != xi {
                top.offer(gid, config.quantise(Vectors.dot(base + xi * d, base + j * d, count: d)))
            }
        }
        var best: (id: Int64, score: Int)?
        // The mean pair similarity is at most the centroids' cosine (|S| ≤ n): a candidate whose
        // centroid is clearly below τ_combine cannot qualify (one quantum of slack for rounding).
        let floor = config.quantise(config.tauCombine) - 1
        for (gid, _) in top.best.filter({ $0.q >= floor }).sorted(by: { $0.id < $1.id }) {
            guard state.groups[gid]!.state == .active, let py = GroupProfile(state.groups[gid]!, occurrences),
                  let score = combinable(x < gid ? (px, py) : (py, px)) else { continue }
            if best == nil || score > best!.score { best = (gid, score) }
        }
        return best?.id
    }

    /// The quantised support of the pair (older, younger), or nil when they may not combine.
    func combinable(_ pair: (old: GroupProfile, young: GroupProfile)) -> Int? {
        let (a, b) = pair
        // Average linkage: the mean similarity over every pair of members, Sa · Sb / (na nb).
        let young = state.groups[b.id]!, old = state.groups[a.id]!
        let sa = GroupGeometry.sum(old.memberIDs, occurrences), sb = GroupGeometry.sum(young.memberIDs, occurrences)
        let link = config.quantise(Vectors.dot(sa, sb) / Float(old.members.count * young.members.count))
        guard link >= config.quantise(config.tauCombine), support(of: b, by: a), support(of: a, by: b) else { return nil }
        for r in b.records where constraints.conflicts(r, with: a.records) { return nil }
        guard !young.members.contains(where: { $0.source.isUserDecided }) else { return nil }
        // The combined group's members, its medoid, and the stay check on every automatic member.
        var ids = old.memberIDs
        for m in young.members where !a.records.contains(occurrences.recordOf(m.occurrenceID)!) { ids.append(m.occurrenceID) }
        ids.sort()
        let sum = GroupGeometry.sum(ids, occurrences)
        guard let medoid = GroupGeometry.medoid(ids, sum: sum, occurrences, config: config) else { return nil }
        let mv = occurrences.vectorOf(medoid)!, stay = config.quantise(config.tauStay)
        for m in old.members where !m.source.isUserDecided && config.quantise(Vectors.dot(occurrences.vectorOf(m.occurrenceID)!, mv)) < stay {
            return nil
        }
        for id in ids where young.membership(of: id) != nil && config.quantise(Vectors.dot(occurrences.vectorOf(id)!, mv)) < stay {
            return nil
        }
        return link
    }

    /// True when every example of `y` would be accepted by `x`'s representative and examples
    /// (s_rep ≥ τ_rep, s_sup ≥ τ_sup, as an occurrence joining).
    func support(of y: GroupProfile, by x: GroupProfile) -> Bool {
        let qRep = config.quantise(config.tauRep), qSup = config.quantise(config.tauSup)
        for (record, v) in y.exemplars {
            guard config.quantise(Vectors.dot(v, x.medoid)) >= qRep else { return false }
            var sims = x.exemplars.filter { $0.record != record }.map { Vectors.dot(v, $0.vector) }
            sims.sort(by: >)
            let m = min(config.exemplars, x.records.count, sims.count)
            guard m > 0, config.quantise(sims.prefix(m).reduce(0, +) / Float(m)) >= qSup else { return false }
        }
        return !y.exemplars.isEmpty
    }

    /// Moves the members of `young` into `old` (one whose record `old` holds goes to pending);
    /// `young` stays empty, dormant, with `mergedInto = old`.
    mutating func absorb(_ young: Int64, into old: Int64) {
        var records = Set(state.groups[old]!.members.compactMap { occurrences.recordOf($0.occurrenceID) })
        var moved: Set<Int64> = []
        for m in state.groups[young]!.members {
            detach(m.occurrenceID, from: young)
            let r = occurrences.recordOf(m.occurrenceID)!
            if records.contains(r) {
                // Pending, but not fresh: it is placed again, never seeds (a seed would only be
                // combined back into this group, and its occurrence sent back here, forever).
                makePending(m.occurrenceID)
                state.pending[m.occurrenceID]!.evaluatedAt = state.groupsVersion
            } else {
                attach(m.occurrenceID, to: old, source: .automatic(score: 0))
                records.insert(r)
                moved.insert(m.occurrenceID)
            }
        }
        settle(young)
        state.groups[young]!.mergedInto = old
        settle(old)
        let mv = occurrences.vectorOf(state.groups[old]!.medoid!)!
        for i in state.groups[old]!.members.indices where moved.contains(state.groups[old]!.members[i].occurrenceID) {
            let id = state.groups[old]!.members[i].occurrenceID
            state.groups[old]!.members[i].source = .automatic(score: config.quantise(Vectors.dot(occurrences.vectorOf(id)!, mv)))
        }
        combined += 1
    }
}
