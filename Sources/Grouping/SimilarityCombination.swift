import LinearAlgebra

/// Combining two groups by similarity, the rule for a category with more than `linkScopeLimit`
/// grouped occurrences (`Combination.swift` has the rule below it, and why).
///
/// Two active groups of one category are combined when they support each other both ways — every
/// example of each (its medoid and supporting examples) would be accepted by the other's
/// representative and examples (s_rep ≥ τ_rep, s_sup ≥ τ_sup, as an occurrence joining) — and
/// the mean similarity over all pairs of their members (average linkage, Sa · Sb / (na nb)) is at
/// least `tauCombine`. It is never a chain: the groups' own members decide, not a path. Further:
/// - no record of one is cannot-linked to a record of the other;
/// - the younger (higher id) holds no pinned or moved member (a group a user shaped stays as left);
/// - no automatic member of either would fall below `tauStay` of the combined medoid (so no pair
///   that was together is pulled apart).
/// The older id survives; the younger's members move into it as automatic members (one whose
/// record the older already holds goes to pending, evaluated: it may join another group but seeds
/// none) and the younger stays empty with `mergedInto` naming the survivor.
extension Workspace {
    /// Combines the active groups of `scope` changed after `since` with partners until none has
    /// one. A group's best partner is the qualifying group among its top-K by centroid similarity
    /// with the highest quantised mean pair similarity (ties to the lowest id). Pairs are combined
    /// best first, found locally: from the lowest waiting id, best partners are followed while
    /// each step finds a strictly higher mean pair similarity; the last two are combined (each is
    /// the other's best, or the partner has none better). So a group is not combined with a
    /// partner that has a closer group of its own waiting (the order of ids does not decide which
    /// groups of a neighbourhood combine). The survivor waits again; a group whose chain finds no
    /// partner stops waiting.
    mutating func combineBySimilarity(_ scope: Scope, since: Int) -> Bool {
        guard config.tauCombine <= 1 else { return false }
        var waiting = Set<Int64>()
        do {
            // (Not kept: a snapshot held here would make every later update copy its matrix.)
            let groups = scopeGroups(scope)
            for (i, gid) in groups.ids.enumerated() where groups.changedAt[i] > since { waiting.insert(gid) }
        }
        var changed = false
        // Best partners already found, kept while nothing they depend on changed (`holds`), and
        // the groups' member sums: both only save work, the answers are the same.
        var known: [Int64: KnownPartner] = [:]
        var combinations: [(old: Int64, young: Int64, unit: [Float])] = []
        var sums: [Int64: [Float]] = [:]
        var profiles: [Int64: GroupProfile] = [:]
        let d = dimension
        func holds(_ k: KnownPartner, _ g: Int64) -> Bool {
            var row: [Float]?
            for c in combinations[k.at...] {
                if c.old == g || c.young == g { return false }
                if k.inactive { continue }
                if k.top.contains(c.old) || k.top.contains(c.young) { return false }
                // The survivor's new centroid must stay below the K-th candidate.
                guard let kth = k.kth else { return false }
                if row == nil {
                    let groups = scopeGroups(scope)
                    let (i, found) = ScopeGroups.search(g, in: groups.live)
                    guard found else { return false }
                    row = Array(groups.centroids.storage[(i * d)..<((i + 1) * d)])
                }
                let q = row!.withUnsafeBufferPointer { r in
                    c.unit.withUnsafeBufferPointer { u in config.quantise(Vectors.dot(r.baseAddress!, u.baseAddress!, count: d)) }
                }
                if q >= kth { return false }
            }
            return true
        }
        func partner(_ g: Int64) -> (id: Int64, score: Int)? {
            if let k = known[g], holds(k, g) {
                // (Checked up to here: later checks look at later combinations only.)
                known[g] = KnownPartner(partner: k.partner, top: k.top, kth: k.kth, inactive: k.inactive, at: combinations.count)
                return k.partner
            }
            let k = state.groups[g]?.state == .active
                ? bestPartner(g, scope, sums: &sums, profiles: &profiles, at: combinations.count)
                : KnownPartner(partner: nil, top: [], kth: nil, inactive: true, at: combinations.count)
            known[g] = k
            return k.partner
        }
        while let x = waiting.min() {
            guard var (b, s) = partner(x) else {
                waiting.remove(x)
                continue
            }
            var a = x
            while let (c, t) = partner(b), t > s {
                (a, b, s) = (b, c, t)
            }
            let (old, young) = a < b ? (a, b) : (b, a)
            absorb(young, into: old, keepPlaces: false)
            for g in [old, young] { sums[g] = nil; profiles[g] = nil }
            let groups = scopeGroups(scope)
            let (i, found) = ScopeGroups.search(old, in: groups.live)
            combinations.append((old, young, found ? Array(groups.centroids.storage[(i * d)..<((i + 1) * d)]) : []))
            waiting.remove(young)
            waiting.insert(old)
            changed = true
        }
        return changed
    }

    /// What `bestPartner` found for a group, and what it depends on besides the group itself: its
    /// top-K candidates by centroid and the K-th's quantised score (nil: fewer than K). `at`: the
    /// number of combinations made in the sweep when it was found or last checked.
    struct KnownPartner {
        let partner: (id: Int64, score: Int)?
        let top: [Int64]
        let kth: Int?
        /// Not active (or no representative): only a change of the group itself changes the answer.
        let inactive: Bool
        let at: Int
    }

    /// The group `x` combines with best, if any, with the quantised mean pair similarity.
    mutating func bestPartner(
        _ x: Int64, _ scope: Scope, sums: inout [Int64: [Float]], profiles: inout [Int64: GroupProfile], at: Int
    ) -> KnownPartner {
        let groups = scopeGroups(scope)
        func profile(_ g: Int64) -> GroupProfile? {
            if let p = profiles[g] { return p }
            let p = GroupProfile(state.groups[g]!, occurrences)
            profiles[g] = p
            return p
        }
        guard let xi = ScopeGroups.search(x, in: groups.live).1 ? ScopeGroups.search(x, in: groups.live).0 : nil,
              let px = profile(x) else {
            return KnownPartner(partner: nil, top: [], kth: nil, inactive: true, at: at)
        }
        let d = dimension
        var top = TopCandidates(k: config.candidateK, scale: config.scoreScale)
        groups.centroids.storage.withUnsafeBufferPointer { c in
            let base = c.baseAddress!
            for (j, gid) in groups.live.enumerated() where j != xi {
                top.offer(gid, config.quantise(Vectors.dot(base + xi * d, base + j * d, count: d)))
            }
        }
        // The mean pair similarity is at most the centroids' cosine (|S| ≤ n): a candidate whose
        // centroid is clearly below τ_combine cannot qualify (one quantum of slack for rounding).
        // (Not for a pair where one group's members are all its examples: support alone decides it.)
        let floor = config.quantise(config.tauCombine) - 1, xSmall = state.groups[x]!.allExamples
        // Support both ways needs each group's first example to pass the other's representative
        // (s_rep ≥ τ_rep): checked before anything else is read of the candidate.
        let qRep = config.quantise(config.tauRep)
        let xFirst = px.exemplars.first?.vector ?? px.medoid
        // The best is the qualifying candidate with the highest mean pair similarity (ties lowest
        // id): the cheaper checks first, then the stay check in that order until one passes.
        var linked: [(id: Int64, link: Int, pair: (old: GroupProfile, young: GroupProfile))] = []
        for (gid, _) in top.best.filter({ $0.q >= floor || xSmall || state.groups[$0.id]!.allExamples }).sorted(by: { $0.id < $1.id }) {
            let g = state.groups[gid]!
            guard g.state == .active, let m = g.medoid, let mv = occurrences.vectorOf(m),
                  let e = g.exemplars.first, let ev = occurrences.vectorOf(e),
                  config.quantise(Vectors.dot(xFirst, mv)) >= qRep, config.quantise(Vectors.dot(ev, px.medoid)) >= qRep,
                  let py = profile(gid) else { continue }
            let pair = x < gid ? (px, py) : (py, px)
            if let link = link(pair, sums: &sums) { linked.append((gid, link, pair)) }
        }
        linked.sort { $0.link != $1.link ? $0.link > $1.link : $0.id < $1.id }
        let best = linked.first { staysTogether($0.pair) }.map { (id: $0.id, score: $0.link) }
        return KnownPartner(partner: best, top: top.best.map(\.id), kth: top.best.count == config.candidateK ? top.best.last?.q : nil,
                            inactive: false, at: at)
    }

    /// The quantised mean pair similarity of (older, younger) when their examples support each other
    /// both ways, it reaches τ_combine (or one group's members are all its examples), no
    /// cannot-link crosses, their representatives are of one record kind (`KindRule.swift`) and the
    /// younger holds no user-decided member; else nil. Whether they may combine also needs `staysTogether`.
    func link(_ pair: (old: GroupProfile, young: GroupProfile), sums: inout [Int64: [Float]]) -> Int? {
        let (a, b) = pair
        guard a.kind == b.kind else { return nil }
        // Average linkage: the mean similarity over every pair of members, Sa · Sb / (na nb).
        // When every member of one of them is one of its examples, support has tried each of them
        // against the other as a join would, and decides alone; otherwise the mean pair similarity
        // must reach τ_combine too (the examples stand for the other members).
        let young = state.groups[b.id]!, old = state.groups[a.id]!
        guard support(of: b, by: a), support(of: a, by: b) else { return nil }
        let sa = sums[a.id] ?? GroupGeometry.sum(old.memberIDs, occurrences), sb = sums[b.id] ?? GroupGeometry.sum(young.memberIDs, occurrences)
        sums[a.id] = sa
        sums[b.id] = sb
        let link = config.quantise(Vectors.dot(sa, sb) / Float(old.members.count * young.members.count))
        guard link >= config.quantise(config.tauCombine) || old.allExamples || young.allExamples else { return nil }
        for r in b.records where constraints.conflicts(r, with: a.records) { return nil }
        guard !young.members.contains(where: { $0.source.isUserDecided }) else { return nil }
        return link
    }

    /// True when no automatic member of the older, and no member of the younger that would move,
    /// falls below τ_stay of the combined group's medoid.
    func staysTogether(_ pair: (old: GroupProfile, young: GroupProfile)) -> Bool {
        let (a, b) = pair
        let young = state.groups[b.id]!, old = state.groups[a.id]!
        var ids = old.memberIDs
        var moving: [Int64] = []
        for m in young.members where !a.records.contains(occurrences.recordOf(m.occurrenceID)!) { moving.append(m.occurrenceID) }
        ids += moving
        ids.sort()
        let sum = GroupGeometry.sum(ids, occurrences)
        guard let medoid = GroupGeometry.medoid(ids, sum: sum, occurrences, config: config) else { return false }
        let mv = occurrences.vectorOf(medoid)!, stay = config.quantise(config.tauStay)
        for m in old.members where !m.source.isUserDecided && config.quantise(Vectors.dot(occurrences.vectorOf(m.occurrenceID)!, mv)) < stay {
            return false
        }
        for id in moving where config.quantise(Vectors.dot(occurrences.vectorOf(id)!, mv)) < stay { return false }
        return true
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
}
