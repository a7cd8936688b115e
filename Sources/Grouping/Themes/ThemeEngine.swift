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
