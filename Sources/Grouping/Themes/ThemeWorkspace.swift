import LinearAlgebra

/// One call of the theme engine over an owner's groups: the themes being changed, the items
/// (active groups) with their profiles, and what the call changed. The rule is in `ThemeRule.swift`,
/// the upkeep of corrections and geometry in `ThemeMaintenance.swift`.
struct ThemeWorkspace {
    var state: ThemeState
    let groups: PatternState
    let occurrences: [Int64: Occurrence]
    let constraints: ThemeConstraints
    let config: ThemeConfig
    var changed: Set<Int64> = []
    var created: Set<Int64> = []
    /// Group id → mean example vector, for the items (active groups).
    var profiles: [Int64: [Float]] = [:]
    var items: [Scope: [Int64]] = [:]
    var themeOf: [Int64: Int64] = [:]
    var sims: [GroupPairKey: Float] = [:]

    /// The raw means computed or reused by this call, for the next (`ThemeProfiles`).
    var computed = ThemeProfiles()
    /// What the previous call left, and the groups whose means this call computed anew.
    var kept: ThemeProfiles?
    var recomputed = Set<Int64>()
    /// The fixpoints this call reached, by scope (`ThemeProfiles.scopes`).
    var memoOut = ThemeProfiles()
    /// Every pair of the scope's groups in one matrix product, when they are few enough to hold
    /// (`gramLimit`); above, pairs are computed as they are asked.
    var gram = Matrix(rows: 0, cols: 0)
    var gramRow: [Int64: Int] = [:]

    init(state: ThemeState, groups: PatternState, occurrences: [Int64: Occurrence], constraints: ThemeConstraints, config: ThemeConfig,
         kept: ThemeProfiles? = nil) {
        self.state = state
        self.groups = groups
        self.occurrences = occurrences
        self.constraints = constraints
        self.config = config
        self.kept = kept
        for g in groups.sortedGroups where g.state == .active && g.mergedInto == nil {
            let p: [Float]
            var digest = Hasher()
            for m in g.members { digest.combine(m.occurrenceID) }
            let d = digest.finalize()
            if let k = kept?.entries[g.id], k.version == g.version, k.digest == d {
                p = k.profile
            } else {
                guard let made = Self.profile(g, occurrences, config) else { continue }
                p = made
                recomputed.insert(g.id)
            }
            computed.entries[g.id] = (g.version, d, p)
            profiles[g.id] = p
            items[g.scope, default: []].append(g.id)
        }
        if config.centred {
            // The category's mean direction (its background) taken out of every group's mean: what
            // all of the category's texts share says nothing about which belong together.
            let means = Self.scopeMeans(occurrences, scopes: Set(items.keys))
            for (scope, ids) in items {
                guard let mu = means[scope] else { continue }
                for id in ids {
                    var v = profiles[id]!
                    guard v.count == mu.count else { continue }
                    for i in v.indices { v[i] -= mu[i] }
                    let norm = (v.reduce(0) { $0 + $1 * $1 }).squareRoot()
                    profiles[id] = norm > 0 ? v.map { $0 / norm } : v
                }
            }
        }
        themeOf = state.themeOfGroup
    }

    /// The mean unit vector of each scope's occurrences, summed in ascending id order.
    static func scopeMeans(_ occurrences: [Int64: Occurrence], scopes: Set<Scope>) -> [Scope: [Float]] {
        var ids: [Scope: [Int64]] = [:]
        for (id, o) in occurrences {
            let s = Scope(owner: o.owner, category: o.category)
            if scopes.contains(s) { ids[s, default: []].append(id) }
        }
        var out: [Scope: [Float]] = [:]
        for (scope, list) in ids {
            if let mean = meanUnitVector(list.sorted().map { occurrences[$0]!.vector }) { out[scope] = mean }
        }
        return out
    }

    /// The mean of `vectors` each scaled to unit length, summed in order; empty and zero vectors, and
    /// vectors of another length than the first, are left out. Nil when none is left.
    static func meanUnitVector<S: Sequence<[Float]>>(_ vectors: S) -> [Float]? {
        var sum: [Float]?, n = 0
        for v in vectors {
            guard !v.isEmpty else { continue }
            if sum == nil { sum = [Float](repeating: 0, count: v.count) }
            guard v.count == sum!.count else { continue }
            let norm = (v.reduce(0) { $0 + $1 * $1 }).squareRoot()
            guard norm > 0 else { continue }
            for i in v.indices { sum![i] += v[i] / norm }
            n += 1
        }
        guard var s = sum, n > 0 else { return nil }
        for i in s.indices { s[i] /= Float(n) }
        return s
    }

    var scopes: [Scope] { items.keys.sorted() }

    static func profile(_ g: Group, _ occurrences: [Int64: Occurrence], _ config: ThemeConfig) -> [Float]? {
        // The representative and examples first, then the other members (`groupExamples` 0: all).
        var ids: [Int64] = []
        if let m = g.medoid { ids.append(m) }
        for e in g.exemplars where !ids.contains(e) { ids.append(e) }
        let listed = Set(ids)
        for m in g.memberIDs where !listed.contains(m) { ids.append(m) }
        return meanUnitVector(ids.prefix(config.groupExamples > 0 ? config.groupExamples : Int.max).compactMap { occurrences[$0]?.vector })
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var s: Float = 0
        for i in 0..<min(a.count, b.count) { s += a[i] * b[i] }
        return s
    }

    mutating func sim(_ a: Int64, _ b: Int64) -> Float {
        let key = GroupPairKey(a, b)
        if let s = sims[key] { return s }
        if let i = gramRow[key.a], let j = gramRow[key.b] {
            // One matrix product per scope (`prepareGram`): the same products, summed by BLAS.
            let q = (gram[i, j] * ThemeEngine.scale).rounded() / ThemeEngine.scale
            sims[key] = q
            return q
        }
        let s = (profiles[a].flatMap { x in profiles[b].map { Self.dot(x, $0) } }) ?? -1
        // Quantised, so that the rule's comparisons do not depend on summation order.
        let q = (s * ThemeEngine.scale).rounded() / ThemeEngine.scale
        sims[key] = q
        return q
    }

    mutating func touch(_ t: Int64) {
        changed.insert(t)
    }

    var outcome: ThemeOutcome {
        var out = state
        let touched = changed.union(created).filter { out.themes[$0] != nil }
        if !touched.isEmpty { out.version += 1 }
        for id in touched {
            out.themes[id]!.version += 1
            out.themes[id]!.changedAt = out.version
        }
        var o = ThemeOutcome(state: out, changedThemes: touched.sorted(), created: created.filter { out.themes[$0] != nil }.count,
                             changed: touched.subtracting(created).count,
                             active: out.themes.values.filter { $0.state == .active }.count)
        o.profiles = computed
        o.profiles.scopes = memoOut.scopes
        return o
    }
}
