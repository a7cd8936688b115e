import LinearAlgebra

/// The theme rule, one level above groups, of the same kind as the group rule:
///
/// - Items are the active groups of one owner + category (never a group combined into another).
///   A group is compared by its examples: its medoid and exemplars (`groupExamples`), and the
///   similarity of two groups is the mean cosine over all pairs of their examples (so it lives on
///   the same scale as the category's background, which the thresholds follow: `ThemeConfig`).
/// - A theme has a representative group (the member most similar on average to the others; ties
///   lowest id) and supporting examples (the members most similar to it, `examples`).
/// - A group without a theme joins the theme where it is ≥ τ_rep of the representative and its
///   mean similarity to the examples is ≥ τ_sup, no correction forbids it; score ½(s_rep + s_sup)
///   quantised, best theme (ties lowest id), only if it beats the runner-up by `delta`. No
///   chaining: a group is judged against the representative and examples, never against the
///   member it happens to be nearest.
/// - Seeding: groups still without a theme, ascending, each grows a clique (pairwise ≥ τ_seed,
///   neighbours in order of −similarity then id, no cannot-share pair); two groups or more found
///   a theme with the next counter id.
/// - Nothing is ever evicted by arriving data: a theme loses a group only when the group stops
///   being an item (dormant, deleted; a group combined into another hands its place to the survivor
///   when the survivor has none) or by a correction. Below two groups a theme is dormant (keeps its
///   id and its lone group, can regain groups); a seed holding the lone group of a dormant theme
///   revives that theme's id.
/// - Incremental and idempotent: every call works from the themes it is given; a second call with
///   the same groups changes nothing.
public enum ThemeEngine {
    static let scale: Float = 10_000

    /// Brings the owner's themes in line with its groups (`groups`, after a group refresh).
    /// `profiles`: what the previous call returned (`ThemeOutcome.profiles`), valid while the
    /// occurrences' vectors are those it saw (nil: every group's mean is computed).
    public static func refresh(themes: ThemeState, groups: PatternState, occurrences: [Int64: Occurrence],
                               constraints: ThemeConstraints, config: ThemeConfig = ThemeConfig(),
                               profiles: ThemeProfiles? = nil) -> ThemeOutcome {
        var ws = ThemeWorkspace(state: themes, groups: groups, occurrences: occurrences, constraints: constraints, config: config,
                                kept: profiles)
        ws.maintain()
        if config.enabled {
            for scope in ws.scopes { ws.run(scope) }
        }
        return ws.outcome
    }

    /// Resolves and applies one correction: the themes it names change at once; later refreshes
    /// honour it through `ThemeConstraints`.
    public static func correct(_ request: ThemeCorrectionRequest, id: Int64, note: String?, createdAt: String,
                               themes: ThemeState, groups: PatternState, occurrences: [Int64: Occurrence],
                               existing: [ThemeCorrection], config: ThemeConfig = ThemeConfig()) throws -> (ThemeCorrection, ThemeOutcome) {
        func theme(_ t: Int64) throws -> Theme {
            guard let th = themes.themes[t] else { throw ThemeError.unknownTheme(t) }
            guard !th.dismissed else { throw ThemeError.invalid(field: "correction", reason: "theme \(t) is dismissed") }
            return th
        }
        var state = themes
        let kind: ThemeCorrectionKind
        switch request {
        case let .remove(t, g):
            let th = try theme(t)
            guard th.member(g) != nil else { throw ThemeError.invalid(field: "correction", reason: "group \(g) is not in theme \(t)") }
            kind = .remove(theme: t, group: g)
        case let .split(t, moveOut):
            let th = try theme(t)
            let out = Array(Set(moveOut)).sorted()
            for g in out where th.member(g) == nil { throw ThemeError.invalid(field: "correction", reason: "group \(g) is not in theme \(t)") }
            let stayed = th.groupIDs.filter { !out.contains($0) }
            guard !stayed.isEmpty else { throw ThemeError.invalid(field: "correction", reason: "a split must leave at least one group in theme \(t)") }
            let newID = state.nextThemeID
            state.nextThemeID += 1
            state.themes[newID] = Theme(id: newID, owner: th.owner, category: th.category)
            kind = .split(theme: t, moveOut: out, newTheme: newID, stayed: stayed)
        case let .merge(into, from):
            guard into != from else { throw ThemeError.invalid(field: "correction", reason: "a theme cannot be merged into itself") }
            let a = try theme(into), b = try theme(from)
            guard a.scope == b.scope else { throw ThemeError.invalid(field: "correction", reason: "themes \(into) and \(from) are of different categories") }
            let constraints = ThemeConstraints.derive(from: existing)
            for x in a.groupIDs { for y in b.groupIDs where !constraints.mayShare(x, y) {
                throw ThemeError.invalid(field: "correction", reason: "groups \(x) and \(y) were kept apart by an earlier correction")
            } }
            kind = .merge(into: into, from: from, moved: b.groupIDs)
        case let .pin(t, g):
            let th = try theme(t)
            guard let group = groups.groups[g], group.mergedInto == nil else { throw ThemeError.unknownGroup(g) }
            guard group.scope == th.scope else { throw ThemeError.invalid(field: "correction", reason: "group \(g) is not of theme \(t)'s category") }
            let constraints = ThemeConstraints.derive(from: existing)
            for x in th.groupIDs where !constraints.mayShare(x, g) {
                throw ThemeError.invalid(field: "correction", reason: "groups \(x) and \(g) were kept apart by an earlier correction")
            }
            kind = .pin(theme: t, group: g)
        case let .dismiss(t):
            let th = try theme(t)
            kind = .dismiss(theme: t, groups: th.groupIDs)
        }
        let correction = ThemeCorrection(id: id, kind: kind, note: note, createdAt: createdAt)
        let constraints = ThemeConstraints.derive(from: existing + [correction])
        var ws = ThemeWorkspace(state: state, groups: groups, occurrences: occurrences, constraints: constraints, config: config)
        if case let .split(_, _, newTheme, _) = kind { ws.created.insert(newTheme) }
        if case let .merge(into, from, _) = kind {
            ws.state.themes[from]!.mergedInto = into
            ws.touch(from)
        }
        if case let .dismiss(t, _) = kind {
            ws.state.themes[t]!.dismissed = true
            ws.touch(t)
        }
        ws.maintain()
        return (correction, ws.outcome)
    }

    /// Undoes a correction: it stops constraining (the caller drops it from the corrections in
    /// force); a dismissed theme is re-opened, empty; the groups it moved stay where they are until
    /// a refresh or another correction moves them.
    public static func undo(_ correction: ThemeCorrection, themes: ThemeState, groups: PatternState, occurrences: [Int64: Occurrence],
                            remaining: [ThemeCorrection], config: ThemeConfig = ThemeConfig()) -> ThemeOutcome {
        var ws = ThemeWorkspace(state: themes, groups: groups, occurrences: occurrences,
                                constraints: ThemeConstraints.derive(from: remaining), config: config)
        if case let .dismiss(t, _) = correction.kind, ws.state.themes[t] != nil {
            ws.state.themes[t]!.dismissed = false
            ws.touch(t)
        }
        ws.maintain()
        return ws.outcome
    }

    /// Labels of the owner's active themes: a key phrase and keywords of the theme's groups'
    /// examples against the rest of the category (≤ 60 characters, no stopword keyword).
    public static func labels(themes: ThemeState, groups: PatternState, occurrences: [Int64: Occurrence], config: ThemeConfig = ThemeConfig()) -> [Int64: GeneratedLabel] {
        var byScope: [Scope: [(id: Int64, descriptions: [String], element: String?)]] = [:]
        let themeOf = themes.themeOfGroup
        func descriptions(_ g: Group) -> [String] {
            var ids: [Int64] = []
            if let m = g.medoid { ids.append(m) }
            for e in g.exemplars where !ids.contains(e) { ids.append(e) }
            return ids.compactMap { occurrences[$0]?.description }
        }
        for t in themes.sortedThemes where t.state == .active && !t.dismissed {
            var ordered = t.examples
            for m in t.groupIDs where !ordered.contains(m) { ordered.append(m) }
            let texts = ordered.compactMap { groups.groups[$0] }.flatMap(descriptions)
            byScope[t.scope, default: []].append((t.id, texts, nil))
        }
        // The category's groups outside active themes count as the rest (negative ids, not returned).
        for g in groups.sortedGroups where g.state == .active && g.mergedInto == nil && byScope[g.scope] != nil {
            if let th = themeOf[g.id], themes.themes[th]?.state == .active { continue }
            byScope[g.scope]!.append((-g.id, descriptions(g), nil))
        }
        var out: [Int64: GeneratedLabel] = [:]
        for scope in byScope.keys.sorted() {
            for (id, label) in Labels.labels(byScope[scope]!, keywordCount: 3) where id > 0 { out[id] = label }
        }
        return out
    }

    /// The similarity of two groups as the rule sees it (mean cosine over their examples' pairs).
    public static func similarity(_ a: Group, _ b: Group, occurrences: [Int64: Occurrence], config: ThemeConfig = ThemeConfig()) -> Float? {
        guard let x = ThemeWorkspace.profile(a, occurrences, config), let y = ThemeWorkspace.profile(b, occurrences, config) else { return nil }
        return ThemeWorkspace.dot(x, y)
    }
}

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

    // MARK: maintenance

    /// Members that stopped being items leave (a combined group hands its place to the survivor);
    /// corrections in force are enforced; states and geometry are brought up to date.
    mutating func maintain() {
        // Decided memberships (pin, split, merge) first.
        for (g, d) in constraints.decided.sorted(by: { $0.key < $1.key }) {
            let t = d.theme, source = d.source
            guard var th = state.themes[t], !th.dismissed, th.mergedInto == nil, profiles[g] != nil,
                  groups.groups[g]?.scope == th.scope else { continue }
            if let current = themeOf[g] {
                if current == t {
                    if th.member(g)!.source != source {
                        th.members = th.members.map { $0.groupID == g ? ThemeMember(groupID: g, source: source) : $0 }
                        state.themes[t] = th
                        touch(t)
                    }
                    continue
                }
                removeMember(g, from: current)
            }
            addMember(g, to: t, source: source)
        }
        for id in state.themes.keys.sorted() {
            var th = state.themes[id]!
            var members: [ThemeMember] = []
            var dirty = false
            for m in th.members {
                var gid = m.groupID
                if profiles[gid] == nil {
                    dirty = true
                    // A group combined into another: the survivor takes its place if it has none.
                    var seen = Set<Int64>()
                    while let next = groups.groups[gid]?.mergedInto, seen.insert(gid).inserted { gid = next }
                    guard gid != m.groupID, profiles[gid] != nil, themeOf[gid] == nil, groups.groups[gid]?.scope == th.scope,
                          !members.contains(where: { $0.groupID == gid }) else {
                        themeOf[m.groupID] = nil
                        continue
                    }
                    themeOf[m.groupID] = nil
                    themeOf[gid] = id
                }
                if th.dismissed || th.mergedInto != nil || constraints.cannotJoin.contains(GroupThemePair(group: gid, theme: id))
                    || (constraints.decided[gid].map { $0.theme != id } ?? false) {
                    dirty = true
                    if themeOf[gid] == id { themeOf[gid] = nil }
                    continue
                }
                members.append(ThemeMember(groupID: gid, source: m.source))
            }
            // A pair kept apart by a correction: the later automatic member leaves.
            var kept: [ThemeMember] = []
            for m in members.sorted(by: { ($0.source.isUserDecided ? 0 : 1, $0.groupID) < ($1.source.isUserDecided ? 0 : 1, $1.groupID) }) {
                if kept.allSatisfy({ constraints.mayShare($0.groupID, m.groupID) }) || m.source.isUserDecided {
                    kept.append(m)
                } else {
                    dirty = true
                    if themeOf[m.groupID] == id { themeOf[m.groupID] = nil }
                }
            }
            kept.sort { $0.groupID < $1.groupID }
            if dirty || kept != th.members {
                th.members = kept
                state.themes[id] = th
                touch(id)
            }
        }
        for id in state.themes.keys.sorted() { settle(id) }
    }

    mutating func removeMember(_ g: Int64, from t: Int64) {
        guard var th = state.themes[t] else { return }
        th.members.removeAll { $0.groupID == g }
        state.themes[t] = th
        themeOf[g] = nil
        touch(t)
    }

    mutating func addMember(_ g: Int64, to t: Int64, source: ThemeMemberSource) {
        guard var th = state.themes[t] else { return }
        th.members.append(ThemeMember(groupID: g, source: source))
        th.members.sort { $0.groupID < $1.groupID }
        state.themes[t] = th
        themeOf[g] = t
        touch(t)
    }

    /// State, representative and examples of a theme from its members.
    mutating func settle(_ id: Int64) {
        guard var th = state.themes[id] else { return }
        let ids = th.groupIDs.filter { profiles[$0] != nil }
        var rep: Int64?
        var best: Float = -.infinity
        for a in ids {
            var s: Float = 0
            for b in ids where b != a { s += sim(a, b) }
            if s > best { best = s; rep = a }
        }
        var examples: [Int64] = []
        if let rep {
            let others = ids.filter { $0 != rep }.map { (id: $0, s: sim(rep, $0)) }.sorted { ($0.s, -$0.id) > ($1.s, -$1.id) }
            examples = [rep] + others.prefix(max(0, config.examples - 1)).map(\.id)
        }
        let st: GroupState = ids.count >= 2 && !th.dismissed && th.mergedInto == nil ? .active : .dormant
        if th.representative != rep || th.examples != examples || th.state != st {
            touch(id)
            th.representative = rep
            th.examples = examples
            th.state = st
            state.themes[id] = th
        }
    }

    // MARK: the rule

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

    /// Every pair of the scope's groups in one matrix product, when they are few enough to hold
    /// (`gramLimit`); above, pairs are computed as they are asked.
    var gram = Matrix(rows: 0, cols: 0)
    var gramRow: [Int64: Int] = [:]
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
