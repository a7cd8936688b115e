import LinearAlgebra

/// Combining two groups that describe one situation (docs/grouping-design.md, "Granularity").
///
/// Seeding makes groups from cliques, and an occurrence joins a group only near its medoid, so one
/// situation that is broader than one medoid's reach ends up as several groups side by side. Which
/// texts are one another's nearest, not how similar they are, is what separates one broad
/// situation's groups from two neighbouring situations. So two active groups of one category are
/// combined when the smaller one's members have their nearest neighbours in the other: of group S
/// (the one with fewer members; ties: the younger) and L, both of at most `linkRows` members (a
/// larger group grows by joins only, which bounds the work of a pair), S's members each take their
/// `linkNeighbours` (k) nearest among S's members and its candidate groups' members nearest it
/// (`NeighbourLinks.swift`), and the share of those neighbours that are in L reaches `combineLink`
/// (L must be one of S's candidates). In a small category every text is among the
/// nearest of many, so the share must also exceed `combineResolution` (γ) times what links drawn
/// at random would give, γ · |L| / 2N, N the members of the category's groups when the sweep begins
/// (a positive modularity gain). Further:
/// - no record of one is cannot-linked to a record of the other;
/// - the younger (higher id) holds no pinned or moved member (a group a user shaped stays as left).
///
/// The older id survives; the younger's members move into it (one whose record the older already
/// holds goes to pending, evaluated: it may join another group but seeds none) and the younger
/// stays empty with `mergedInto` naming the survivor. Every automatic member of the combined group
/// becomes `.combined`: each was placed against its own group's medoid, and the combined group's
/// medoid may be far from some of them; the combination now holds them, so the stay check no
/// longer applies to them (they leave when their occurrence does, or by a correction). A later
/// join is still decided against the combined group's medoid and examples, and still asks that it
/// push no automatic member out.
///
/// This is the rule while a category has at most `linkScopeLimit` grouped occurrences: counting
/// neighbours costs the work of a few small matrix products per group and combination, which in a
/// category of tens of thousands of occurrences made a full build several times slower. A larger
/// category combines by similarity (`SimilarityCombination.swift`).
///
/// A group is looked at (waits) when it changed since the previous sweep and it is new to
/// sweeps or its number of members has changed by at least a quarter since a sweep last looked at
/// it (`Group.sweptMembers`): one more member in a large group does not make its neighbours'
/// links worth counting again.
extension Workspace {
    /// Combines the active groups of `scope` changed after `since` with partners until none has
    /// one. A group's best partner is the qualifying group among its top-K by centroid similarity
    /// with the highest quantised link share (ties to the lowest id). Pairs are combined best
    /// first, found locally: from the lowest waiting id, best partners are followed while each step
    /// finds a strictly higher link share; the last two are combined (each is the other's best, or
    /// the partner has none better). So a group is not combined with a partner that has a closer
    /// group of its own waiting (the order of ids does not decide which groups of a neighbourhood
    /// combine). The survivor waits again; a group whose chain finds no partner stops waiting.
    mutating func combine(_ scope: Scope, since: Int) -> Bool {
        // (With a judge, no membership is made without its yes: groups are combined only by a merge correction.)
        guard !hasOuterJudge else { return false }
        let grouped = scopeGroups(scope).grouped
        guard grouped <= config.linkScopeLimit else { return combineBySimilarity(scope, since: since) }
        guard config.combineLink <= 1, config.linkNeighbours > 0, config.linkRows > 0 else { return false }
        var waiting = Set<Int64>()
        do {
            // (Not kept: a snapshot held here would make every later update copy its matrix.)
            let groups = scopeGroups(scope)
            for (i, gid) in groups.ids.enumerated() where groups.changedAt[i] > since && grewEnough(gid) { waiting.insert(gid) }
        }
        var changed = false
        var links = NeighbourLinks.Cache()
        links.grouped = grouped
        while let x = waiting.min() {
            guard var (b, s) = partner(x, scope, &links) else {
                waiting.remove(x)
                swept(x)
                continue
            }
            var a = x
            while let (c, t) = partner(b, scope, &links), t > s {
                (a, b, s) = (b, c, t)
            }
            let (old, young) = a < b ? (a, b) : (b, a)
            absorb(young, into: old)
            links.combined(old: old, young: young, unit: centroidRow(old, scope))
            waiting.remove(young)
            waiting.insert(old)
            changed = true
        }
        return changed
    }

    /// The group `x` combines with best, if any, with the quantised link share: the active
    /// candidates among its top-K that qualify with it (`share`) and may combine with it; the
    /// highest share, ties lowest id.
    mutating func partner(_ x: Int64, _ scope: Scope, _ cache: inout NeighbourLinks.Cache) -> (id: Int64, score: Int)? {
        // (A group above `linkRows` members has none: no need to rank its candidates.)
        guard state.groups[x]?.state == .active, state.groups[x]!.members.count <= config.linkRows,
              let rx = ranking(x, scope, &cache) else { return nil }
        var best: (id: Int64, score: Int)?
        for b in rx.top.sorted() where state.groups[b]?.state == .active {
            guard let q = share(x, b, scope, &cache), best == nil || q > best!.score, mayCombine(min(x, b), max(x, b)) else { continue }
            best = (b, q)
        }
        return best
    }

    /// The quantised share of the smaller group's neighbours in the other when it reaches
    /// `combineLink` and exceeds γ · |L| / 2N; else nil.
    mutating func share(_ a: Int64, _ b: Int64, _ scope: Scope, _ cache: inout NeighbourLinks.Cache) -> Int? {
        let na = state.groups[a]!.members.count, nb = state.groups[b]!.members.count
        let (small, large, nl) = na < nb || (na == nb && a > b) ? (a, b, nb) : (b, a, na)
        guard max(na, nb) <= config.linkRows, let ls = links(small, scope, &cache), ls.rows > 0, ls.top.contains(large) else { return nil }
        let c = ls.counts[large] ?? 0, slots = config.linkNeighbours * ls.rows
        let q = config.quantise(Float(c) / Float(slots))
        // The modularity gain: c / slots > γ · |L| / 2N.
        guard q >= config.quantise(config.combineLink),
              Double(c) * 2 * Double(cache.grouped) > Double(config.combineResolution) * Double(nl) * Double(slots) else { return nil }
        return q
    }

    /// True when `g` is new to sweeps or its number of members changed by a quarter since one
    /// last looked at it.
    func grewEnough(_ g: Int64) -> Bool {
        guard let before = state.groups[g]!.sweptMembers else { return true }
        return 4 * abs(state.groups[g]!.members.count - before) >= before
    }

    /// Records that a sweep looked at `g` with the members it has now.
    mutating func swept(_ g: Int64) {
        guard let n = state.groups[g]?.members.count, state.groups[g]!.sweptMembers != n else { return }
        state.groups[g]!.sweptMembers = n
        changedGroups.insert(g)
    }

    /// The candidates of `g` from the cache while they still hold, else ranked anew (and kept).
    mutating func ranking(_ g: Int64, _ scope: Scope, _ cache: inout NeighbourLinks.Cache) -> NeighbourLinks.Ranking? {
        let now = cache.combinations.count
        if var r = cache.rankings[g], cache.holds(top: r.top, kth: r.kth, since: r.at, g, centroid: { centroidRow(g, scope) }, config: config) {
            r.at = now
            cache.rankings[g] = r
            return r
        }
        let r = NeighbourLinks.rank(g, groups: scopeGroups(scope), config: config, d: dimension, at: now)
        cache.rankings[g] = r
        return r
    }

    /// The links of `g` from the cache while they still hold, else counted anew (and kept).
    mutating func links(_ g: Int64, _ scope: Scope, _ cache: inout NeighbourLinks.Cache) -> NeighbourLinks? {
        let now = cache.combinations.count
        if var l = cache.entries[g], cache.holds(l, g, centroid: { centroidRow(g, scope) }, config: config) {
            l.at = now
            cache.entries[g] = l
            return l
        }
        guard let r = ranking(g, scope, &cache) else { return nil }
        let l = NeighbourLinks.count(g, ranking: r, groups: scopeGroups(scope), state: state, occurrences: occurrences, config: config,
                                     d: dimension, at: now)
        cache.entries[g] = l
        return l
    }

    /// No cannot-link crosses from the younger's records to the older's, their representatives are
    /// of one record kind (`KindRule.swift`), and the younger holds no user-decided member.
    func mayCombine(_ old: Int64, _ young: Int64) -> Bool {
        let y = state.groups[young]!
        guard !y.members.contains(where: { $0.source.isUserDecided }), representativeKind(old) == representativeKind(young) else { return false }
        let oldRecords = Set(state.groups[old]!.members.compactMap { occurrences.recordOf($0.occurrenceID) })
        for m in y.members {
            if let r = occurrences.recordOf(m.occurrenceID), constraints.conflicts(r, with: oldRecords) { return false }
        }
        return true
    }

    /// The unit centroid of live group `g` as the scope's groups hold it now (nil: not live).
    mutating func centroidRow(_ g: Int64, _ scope: Scope) -> [Float]? {
        let groups = scopeGroups(scope)
        let (i, found) = ScopeGroups.search(g, in: groups.live)
        guard found else { return nil }
        let d = dimension
        return Array(groups.centroids.storage[(i * d)..<((i + 1) * d)])
    }

    /// Moves the members of `young` into `old` (one whose record `old` holds goes to pending);
    /// `young` stays empty, dormant, with `mergedInto = old`. `keepPlaces`: every automatic member of
    /// the combined group becomes `.combined` (this rule); else the moved members are automatic,
    /// scored against the combined medoid (combining by similarity).
    mutating func absorb(_ young: Int64, into old: Int64, keepPlaces: Bool = true) {
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
                pendingChanged.insert(m.occurrenceID)
            } else {
                attach(m.occurrenceID, to: old, source: keepPlaces ? .combined : .automatic(score: 0))
                records.insert(r)
                moved.insert(m.occurrenceID)
            }
        }
        if keepPlaces {
            for i in state.groups[old]!.members.indices where state.groups[old]!.members[i].source.staysChecked {
                state.groups[old]!.members[i].source = .combined
            }
        }
        settle(young)
        state.groups[young]!.mergedInto = old
        settle(old)
        if !keepPlaces {
            let mv = occurrences.vectorOf(state.groups[old]!.medoid!)!
            for i in state.groups[old]!.members.indices where moved.contains(state.groups[old]!.members[i].occurrenceID) {
                let id = state.groups[old]!.members[i].occurrenceID
                state.groups[old]!.members[i].source = .automatic(score: config.quantise(Vectors.dot(occurrences.vectorOf(id)!, mv)))
            }
        }
        combined += 1
    }
}
