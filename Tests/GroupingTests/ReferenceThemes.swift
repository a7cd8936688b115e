import Grouping
import LinearAlgebra

/// The theme rule of `Sources/Grouping/Themes/ThemeEngine.swift` written out as directly as it
/// reads, with no similarity cache and nothing kept between decisions: every similarity, every
/// representative and every example list is computed again from the members when it is asked.
/// `ThemeTests` checks the real engine against it after every refresh of random histories.
struct ReferenceThemes {
    struct RTheme: Equatable {
        let id: Int64
        let scope: Scope
        var members: [Int64: ThemeMemberSource] = [:]
        var dismissed = false
        var mergedInto: Int64?
        var ids: [Int64] { members.keys.sorted() }
    }

    var themes: [Int64: RTheme] = [:]
    var nextID: Int64 = 1
    var config = ThemeConfig()

    /// The mean cosine over all pairs of two groups' members (medoid, exemplars, then the others,
    /// at most `groupExamples` when it is set), quantised to 1/10 000.
    func similarity(_ a: Group, _ b: Group, _ occ: [Int64: Occurrence]) -> Float {
        func examples(_ g: Group) -> [[Float]] {
            var ids: [Int64] = []
            if let m = g.medoid { ids.append(m) }
            for e in g.exemplars where !ids.contains(e) { ids.append(e) }
            for m in g.memberIDs where !ids.contains(m) { ids.append(m) }
            return ids.prefix(config.groupExamples > 0 ? config.groupExamples : Int.max).compactMap { occ[$0]?.vector }.map(Vectors.normalized)
        }
        let x = examples(a), y = examples(b)
        guard !x.isEmpty, !y.isEmpty else { return -1 }
        // Σᵢⱼ uᵢ·vⱼ / (|x||y|) = mean(x) · mean(y), summed in the members' order.
        func mean(_ vs: [[Float]]) -> [Float] {
            var m = [Float](repeating: 0, count: vs[0].count)
            for v in vs { for i in m.indices { m[i] += v[i] } }
            return m.map { $0 / Float(vs.count) }
        }
        let mx = mean(x), my = mean(y)
        var s: Float = 0
        for i in 0..<min(mx.count, my.count) { s += mx[i] * my[i] }
        return (s * 10_000).rounded() / 10_000
    }

    func items(_ groups: PatternState) -> [Group] {
        groups.sortedGroups.filter { $0.state == .active && $0.mergedInto == nil && $0.medoid != nil }
    }

    func representative(_ t: RTheme, _ groups: PatternState, _ occ: [Int64: Occurrence]) -> Int64? {
        let live = t.ids.filter { id in items(groups).contains { $0.id == id } }
        var best: (Int64, Float)?
        for a in live {
            let s = live.filter { $0 != a }.reduce(Float(0)) { $0 + similarity(groups.groups[a]!, groups.groups[$1]!, occ) }
            if best == nil || s > best!.1 { best = (a, s) }
        }
        return best?.0
    }

    func examples(_ t: RTheme, _ groups: PatternState, _ occ: [Int64: Occurrence]) -> [Int64] {
        guard let rep = representative(t, groups, occ) else { return [] }
        let live = t.ids.filter { id in id != rep && items(groups).contains { $0.id == id } }
        let ranked = live.sorted {
            let a = similarity(groups.groups[rep]!, groups.groups[$0]!, occ), b = similarity(groups.groups[rep]!, groups.groups[$1]!, occ)
            return a != b ? a > b : $0 < $1
        }
        return [rep] + ranked.prefix(config.examples - 1)
    }

    func isActive(_ t: RTheme, _ groups: PatternState) -> Bool {
        !t.dismissed && t.mergedInto == nil && t.ids.filter { id in items(groups).contains { $0.id == id } }.count >= 2
    }

    func themeOf(_ g: Int64) -> Int64? { themes.values.first { $0.members[g] != nil }?.id }

    func free(_ g: Int64, _ groups: PatternState) -> Bool {
        guard let t = themeOf(g), let th = themes[t] else { return true }
        return !isActive(th, groups) && th.members.count == 1 && th.members[g] == .automatic
    }

    mutating func refresh(_ groups: PatternState, _ occ: [Int64: Occurrence], _ c: ThemeConstraints) {
        let live = Set(items(groups).map(\.id))
        // Corrections' decisions first, then members that are no longer items leave (a combined
        // group's survivor takes its place when it has none), then what corrections forbid.
        for (g, d) in c.decided.sorted(by: { $0.key < $1.key }) {
            guard let th = themes[d.theme], !th.dismissed, th.mergedInto == nil, live.contains(g), groups.groups[g]!.scope == th.scope else { continue }
            if let cur = themeOf(g), cur != d.theme { themes[cur]!.members[g] = nil }
            themes[d.theme]!.members[g] = d.source
        }
        for id in themes.keys.sorted() {
            var th = themes[id]!
            var next: [Int64: ThemeMemberSource] = [:]
            for (g, source) in th.members.sorted(by: { $0.key < $1.key }) {
                var gid = g
                if !live.contains(g) {
                    while let m = groups.groups[gid]?.mergedInto { gid = m }
                    guard gid != g, live.contains(gid), themeOf(gid) == nil, next[gid] == nil, groups.groups[gid]!.scope == th.scope else { continue }
                }
                if th.dismissed || th.mergedInto != nil || c.cannotJoin.contains(GroupThemePair(group: gid, theme: id))
                    || (c.decided[gid].map { $0.theme != id } ?? false) { continue }
                next[gid] = source
            }
            var kept: [Int64: ThemeMemberSource] = [:]
            for (g, s) in next.sorted(by: { ($0.value.isUserDecided ? 0 : 1, $0.key) < ($1.value.isUserDecided ? 0 : 1, $1.key) }) {
                if s.isUserDecided || kept.keys.allSatisfy({ !c.cannotShare.contains(GroupPairKey($0, g)) }) { kept[g] = s }
            }
            th.members = kept
            themes[id] = th
        }
        for scope in Set(items(groups).map(\.scope)).sorted() {
            let b = groups.levels[scope].map { Float($0) / 100 } ?? config.fallbackBackground
            let rep = b + config.repFraction * (1 - b), sup = b + config.supFraction * (1 - b), seed = b + config.seedFraction * (1 - b)
            let ids = items(groups).filter { $0.scope == scope }.map(\.id)
            for _ in 0..<config.maxPasses {
                var moved = false
                for g in ids where free(g, groups) {
                    var scored: [(Int, Int64)] = []
                    for th in themes.values.sorted(by: { $0.id < $1.id }) where th.scope == scope && !th.dismissed && th.mergedInto == nil
                        && th.members[g] == nil && !c.dismissed.contains(th.id) && !c.cannotJoin.contains(GroupThemePair(group: g, theme: th.id))
                        && th.ids.allSatisfy({ $0 == g || !c.cannotShare.contains(GroupPairKey($0, g)) }) {
                        guard let r = representative(th, groups, occ) else { continue }
                        let sRep = similarity(groups.groups[g]!, groups.groups[r]!, occ)
                        let ex = examples(th, groups, occ)
                        let sSup = ex.reduce(Float(0)) { $0 + similarity(groups.groups[g]!, groups.groups[$1]!, occ) } / Float(ex.count)
                        if sRep >= rep && sSup >= sup { scored.append((Int(((sRep + sSup) / 2 * 10_000).rounded()), th.id)) }
                    }
                    scored.sort { $0.0 != $1.0 ? $0.0 > $1.0 : $0.1 < $1.1 }
                    guard let best = scored.first else { continue }
                    if scored.count > 1 && Float(best.0 - scored[1].0) < config.delta * 10_000 { continue }
                    if let old = themeOf(g) { themes[old]!.members[g] = nil }
                    themes[best.1]!.members[g] = .automatic
                    moved = true
                }
                // Seeds: cliques of free groups at τ_seed.
                var used = Set<Int64>()
                for g in ids where !used.contains(g) && free(g, groups) {
                    var n: [(Int64, Float)] = []
                    for x in ids where x != g && !used.contains(x) && free(x, groups) {
                        let s: Float = similarity(groups.groups[g]!, groups.groups[x]!, occ)
                        if s >= seed { n.append((x, s)) }
                    }
                    n.sort { (a: (Int64, Float), b: (Int64, Float)) -> Bool in a.1 != b.1 ? a.1 > b.1 : a.0 < b.0 }
                    var clique = [g]
                    for (x, _) in n where clique.allSatisfy({ similarity(groups.groups[$0]!, groups.groups[x]!, occ) >= seed && !c.cannotShare.contains(GroupPairKey($0, x)) }) {
                        clique.append(x)
                    }
                    guard clique.count >= 2 else { continue }
                    let revived = clique.compactMap { themeOf($0) }.filter { t in
                        let th = themes[t]!
                        return !th.dismissed && th.mergedInto == nil && !c.dismissed.contains(t)
                            && clique.allSatisfy { !c.cannotJoin.contains(GroupThemePair(group: $0, theme: t)) }
                    }.min()
                    let tid = revived ?? nextID
                    if revived == nil {
                        nextID += 1
                        themes[tid] = RTheme(id: tid, scope: scope)
                    }
                    for m in clique where themeOf(m) != tid {
                        if let old = themeOf(m) { themes[old]!.members[m] = nil }
                        themes[tid]!.members[m] = .automatic
                        used.insert(m)
                    }
                    used.insert(g)
                    moved = true
                }
                if !moved { break }
            }
        }
    }

    /// Theme id → (members with their sources, active), to compare with the real engine.
    func summary(_ groups: PatternState) -> [Int64: [Int64: ThemeMemberSource]] {
        var out: [Int64: [Int64: ThemeMemberSource]] = [:]
        for (id, t) in themes where isActive(t, groups) { out[id] = t.members }
        return out
    }
}
