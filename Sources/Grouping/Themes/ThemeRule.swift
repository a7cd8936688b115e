import LinearAlgebra

/// The theme rule (`ThemeEngine`'s header states it): thresholds, free groups, joins against the
/// representative and examples, and clique seeds.
extension ThemeWorkspace {
    mutating func thresholds(_ scope: Scope) -> (rep: Float, sup: Float, seed: Float) {
        config.centred ? (config.repFraction, config.supFraction, config.seedFraction) : config.thresholds(level: groups.levels[scope])
    }

    /// A group may take part in joins and seeds: it has no theme, or is the automatic lone group of
    /// a dormant theme.
    func isFree(_ g: Int64) -> Bool {
        guard let t = themeOf[g] else { return true }
        guard let th = state.themes[t] else { return true }
        return th.state == .dormant && th.members.count == 1 && !th.members[0].source.isUserDecided
    }

    /// Pairs of the scope's groups are read from `gram` when they are few enough to hold (`gramLimit`);
    /// above, they are computed as they are asked.
    static let gramLimit = 4000

    mutating func prepareGram(_ ids: [Int64]) {
        gramRow = [:]
        gram = Matrix(rows: 0, cols: 0)
        guard ids.count >= 2, ids.count <= Self.gramLimit, let d = profiles[ids[0]]?.count, d > 0,
              ids.allSatisfy({ profiles[$0]?.count == d }) else { return }
        var flat: [Float] = []
        flat.reserveCapacity(ids.count * d)
        for id in ids { flat += profiles[id]! }
        let m = Matrix(rows: ids.count, cols: d, storage: flat)
        gram = m.timesTransposed(m)
        for (i, id) in ids.enumerated() { gramRow[id] = i }
    }

    /// Runs joins and seeds over one scope until nothing changes. With what the previous call left
    /// (`ThemeProfiles.scopes`: the free groups and the themes' signatures at its fixpoint, at the
    /// same level), only what changed since is looked at, with the same result: an unchanged free
    /// group was eligible for no unchanged theme and had no unchanged free group within τ_seed, or
    /// the previous call would have placed it.
    mutating func run(_ scope: Scope) {
        let τ = thresholds(scope)
        let ids = items[scope] ?? []
        let level = groups.levels[scope]
        let memo = kept?.scopes[scope].flatMap { $0.level == level && !config.centred ? $0 : nil }
        var dirtyGroups = Set<Int64>()
        var dirtyThemes = Set<Int64>()
        let all = memo == nil
        if let memo {
            for g in ids where recomputed.contains(g) || (isFree(g) && !memo.free.contains(g)) { dirtyGroups.insert(g) }
            for t in scopeThemes(scope) where signature(t) != memo.themes[t] { dirtyThemes.insert(t) }
        }
        if all { prepareGram(ids) }
        defer { gramRow = [:]; gram = Matrix(rows: 0, cols: 0) }
        var settled = false
        for _ in 0..<max(1, config.maxPasses) {
            var moved = false
            // Joins, ascending, each against the themes as they are after the previous one.
            var themes = scopeThemes(scope)
            for g in ids where isFree(g) {
                let look = all || dirtyGroups.contains(g) ? themes : themes.filter(dirtyThemes.contains)
                guard !look.isEmpty, let t = bestTheme(for: g, among: look, τ) else { continue }
                if let old = themeOf[g] { removeMember(g, from: old); settle(old); dirtyThemes.insert(old) }
                addMember(g, to: t, source: .automatic)
                settle(t)
                dirtyThemes.insert(t)
                moved = true
            }
            let free = ids.filter { isFree($0) }
            var candidates = free
            if !all {
                let dirtyFree = free.filter(dirtyGroups.contains)
                var near = Set(dirtyFree)
                for c in free where !near.contains(c) {
                    for d in dirtyFree where sim(c, d) >= τ.seed { near.insert(c); break }
                }
                candidates = free.filter(near.contains)
            }
            let made = seed(candidates, free: free, τ.seed)
            if !made.isEmpty {
                moved = true
                for t in made { dirtyThemes.insert(t) }
                themes = scopeThemes(scope)
            }
            if !moved { settled = true; break }
        }
        if settled {
            var sigs: [Int64: Int] = [:]
            for t in scopeThemes(scope) { sigs[t] = signature(t) }
            memoOut.scopes[scope] = ThemeProfiles.ScopeMemo(level: level, free: Set(ids.filter { isFree($0) }), themes: sigs)
        }
    }

    /// The scope's themes that can take groups, ascending.
    func scopeThemes(_ scope: Scope) -> [Int64] {
        state.themes.keys.sorted().filter { id in
            let th = state.themes[id]!
            return th.scope == scope && !th.dismissed && th.mergedInto == nil && th.representative != nil && !constraints.dismissed.contains(id)
        }
    }

    /// What a theme's decisions depend on: its members, representative and examples, and their means.
    func signature(_ t: Int64) -> Int {
        guard let th = state.themes[t] else { return 0 }
        var h = Hasher()
        for m in th.members { h.combine(m.groupID); h.combine(computed.entries[m.groupID]?.digest); h.combine(computed.entries[m.groupID]?.version) }
        h.combine(th.representative)
        h.combine(th.examples)
        return h.finalize()
    }

    mutating func bestTheme(for g: Int64, among themes: [Int64], _ τ: (rep: Float, sup: Float, seed: Float)) -> Int64? {
        var scored: [(score: Int, id: Int64)] = []
        let own = themeOf[g]
        for id in themes {
            let th = state.themes[id]!
            guard id != own, let rep = th.representative,
                  !constraints.cannotJoin.contains(GroupThemePair(group: g, theme: id)),
                  th.members.allSatisfy({ constraints.mayShare($0.groupID, g) }) else { continue }
            let sRep = sim(g, rep)
            guard sRep >= τ.rep else { continue }
            let examples = th.examples.isEmpty ? [rep] : th.examples
            var total: Float = 0
            for e in examples { total += sim(g, e) }
            let sSup = total / Float(examples.count)
            guard sSup >= τ.sup else { continue }
            scored.append((Int(((sRep + sSup) / 2 * ThemeEngine.scale).rounded()), id))
        }
        scored.sort { ($0.score, -$0.id) > ($1.score, -$1.id) }
        guard let best = scored.first else { return nil }
        if scored.count > 1, Float(best.score - scored[1].score) < config.delta * ThemeEngine.scale { return nil }
        return best.id
    }

    /// Cliques of free groups at τ_seed, grown from `candidates` (ascending) among `free`; a clique
    /// of two or more founds a theme (the lone group's dormant theme when one of them has one, else
    /// a new id). Returns the themes founded or revived.
    mutating func seed(_ candidates: [Int64], free: [Int64], _ τSeed: Float) -> [Int64] {
        var made: [Int64] = []
        var used = Set<Int64>()
        for g in candidates where !used.contains(g) && isFree(g) {
            var neighbours: [(id: Int64, s: Float)] = []
            for f in free where f != g && !used.contains(f) && isFree(f) {
                let s = sim(g, f)
                if s >= τSeed { neighbours.append((f, s)) }
            }
            guard !neighbours.isEmpty else { continue }
            neighbours.sort { ($0.s, -$0.id) > ($1.s, -$1.id) }
            var clique = [g]
            for n in neighbours where clique.allSatisfy({ sim($0, n.id) >= τSeed && constraints.mayShare($0, n.id) }) {
                clique.append(n.id)
            }
            guard clique.count >= 2 else { continue }
            let revived = clique.compactMap { themeOf[$0] }.filter { t in
                let th = state.themes[t]!
                return !th.dismissed && th.mergedInto == nil && !constraints.dismissed.contains(t)
                    && clique.allSatisfy { !constraints.cannotJoin.contains(GroupThemePair(group: $0, theme: t)) }
            }.min()
            let tid: Int64
            if let revived { tid = revived } else {
                tid = state.nextThemeID
                state.nextThemeID += 1
                state.themes[tid] = Theme(id: tid, owner: groups.groups[g]!.owner, category: groups.groups[g]!.category)
                created.insert(tid)
            }
            for m in clique where themeOf[m] != tid {
                if let old = themeOf[m] { removeMember(m, from: old); settle(old) }
                addMember(m, to: tid, source: .automatic)
                used.insert(m)
            }
            used.insert(g)
            settle(tid)
            made.append(tid)
        }
        return made
    }
}
