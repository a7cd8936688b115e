/// The grouping engine: pure functions from values to values. No I/O, no clocks, no randomness.
public enum PatternEngine {}

/// Counts describing what one engine call changed.
public struct RefreshStats: Sendable, Hashable, Codable {
    public var groupsCreated = 0
    /// Existing groups whose membership changed (created groups not included).
    public var groupsChanged = 0
    /// Changed or created groups that are dormant afterwards.
    public var groupsDormant = 0
    /// Occurrences placed into existing groups.
    public var assigned = 0
    /// Automatic members evicted by the stay check.
    public var evicted = 0
    /// Occurrences pending afterwards.
    public var pending = 0
    /// Groups combined into an older one (`Group.mergedInto`).
    public var groupsCombined = 0
    /// Pending occurrences the judge gave no answer about (they are asked about again next time).
    public var waitingForJudge = 0
    /// The categories whose background level in force moved in this call, by scope (see
    /// `PatternState.levels`); their thresholds moved with it.
    public var levelChanges: [LevelChange] = []

    public init() {}

    /// Two calls' stats together (owners of one refresh): every count summed, level changes joined.
    public static func + (a: RefreshStats, b: RefreshStats) -> RefreshStats {
        var s = a
        s.groupsCreated += b.groupsCreated
        s.groupsChanged += b.groupsChanged
        s.groupsDormant += b.groupsDormant
        s.assigned += b.assigned
        s.evicted += b.evicted
        s.pending += b.pending
        s.groupsCombined += b.groupsCombined
        s.waitingForJudge += b.waitingForJudge
        s.levelChanges += b.levelChanges
        return s
    }
}

/// The result of an engine call: the new state to persist and what changed.
public struct RefreshOutcome: Sendable, Hashable {
    public var state: PatternState
    public var stats: RefreshStats
    /// Groups created or whose membership changed, ascending. Persist these (and `state.pending`).
    public var changedGroups: [Int64]
    /// Occurrences whose pending mark the call set, changed or removed, ascending: a store that
    /// keeps marks one by one writes these (and `state.checked`), unless `pendingReplaced`.
    public var changedPending: [Int64] = []
    /// Every pending mark may have changed (a rebuild): write the whole map.
    public var pendingReplaced = false
}

extension Workspace {
    var outcome: RefreshOutcome {
        var stats = RefreshStats()
        stats.groupsCreated = createdGroups.count
        stats.groupsChanged = changedGroups.subtracting(createdGroups).count
        let touched = changedGroups.union(createdGroups)
        stats.groupsDormant = touched.filter { state.groups[$0]?.state == .dormant }.count
        stats.assigned = assigned
        stats.levelChanges = levelChanges.keys.sorted().map { levelChanges[$0]! }
        stats.evicted = evicted
        stats.pending = state.pending.count
        stats.groupsCombined = combined
        stats.waitingForJudge = waitingForJudge
        return RefreshOutcome(state: state, stats: stats, changedGroups: touched.sorted(), changedPending: pendingChanged.sorted(),
                              pendingReplaced: pendingReplaced)
    }

    /// Checks that every vector has the same dimension as the lowest id's (the lowest mismatching
    /// id is reported). With `only`, checks just those occurrences, against the dimension of an
    /// occurrence the state already held (all of those agree: each was checked when it was new),
    /// or the lowest id's of `only` when every occurrence is new: an occurrence's vector is fixed
    /// for its id once the state has seen it. The cost is that of `only`, not of the history.
    func checkDimensions(only: [Int64]? = nil) throws {
        guard let only else { return try checkAllDimensions() }
        guard let lowest = only.min() else { return }
        let new = Set(only)
        let expected = occurrences.first(where: { !new.contains($0.key) })?.value.vector.count ?? occurrences.vectorOf(lowest)!.count
        var bad: Int64?
        for id in only where id < (bad ?? .max) && occurrences.vectorOf(id).map({ $0.count != expected }) == true { bad = id }
        if let bad { throw GroupingError.dimensionMismatch(occurrence: bad, expected: expected, found: occurrences.vectorOf(bad)!.count) }
    }

    private func checkAllDimensions() throws {
        guard let first = occurrences.keys.min() else { return }
        let expected = occurrences.vectorOf(first)!.count
        let values = occurrences.values
        var same = true
        for i in values.indices where values[i].vector.count != expected { same = false; break }
        if same { return }
        var bad: Int64?
        for (id, o) in occurrences where o.vector.count != expected && id < (bad ?? .max) { bad = id }
        if let bad { throw GroupingError.dimensionMismatch(occurrence: bad, expected: expected, found: occurrences.vectorOf(bad)!.count) }
    }

    /// Runs assignment and seeding passes over one scope until nothing changes (or `maxPasses`).
    mutating func run(_ scope: Scope, isCancelled: () -> Bool) throws {
        if outerJudge != nil { return try judgedRun(scope, isCancelled: isCancelled) }
        config = config(for: scope)
        evidence?.config = config
        defer { config = baseConfig; evidence?.config = baseConfig }
        try passes(scope, isCancelled: isCancelled)
        try certify(scope, isCancelled: isCancelled)
    }

    /// Assignment and seeding passes; when one changes nothing (or in the last pass), a combination
    /// sweep, and when that changes nothing either, loose seeds from the occurrences that were fresh
    /// when the run began; until a pass changes nothing at all (or `maxPasses`). Groups are combined once they
    /// have taken what assignment gives them, not while they are small seeds. A sweep looks at the
    /// groups changed since the previous sweep began (in this run).
    private mutating func passes(_ scope: Scope, isCancelled: () -> Bool) throws {
        var combineSince = state.groupsVersion
        let arrived = freshPending(scope)
        let passes = max(1, config.maxPasses)
        for pass in 0..<passes {
            let lastChange = scopeGroups(scope).lastChange
            recentlyEvicted = []
            // Fresh, or evaluated before the scope's last change.
            let work = duePending(scope, lastChange: lastChange)
            if work.isEmpty && lastChange <= combineSince { return }
            var changed = work.isEmpty ? false : try assign(work, in: scope, lastChange: lastChange, isCancelled: isCancelled)
            // Evicted occurrences wait for the next pass rather than join another group in this one.
            let fresh = freshPending(scope).filter { !recentlyEvicted.contains($0) }
            if !fresh.isEmpty { changed = try seed(fresh, in: scope, isCancelled: isCancelled) || changed }
            if changed && pass < passes - 1 { continue }
            let sweep = state.groupsVersion
            if isCancelled() { throw GroupingError.cancelled }
            changed = combine(scope, since: combineSince) || changed
            combineSince = sweep
            if !changed && config.looseSeedRecords > 0 && config.tauLooseSeed <= 1 {
                // Nothing else changes: the occurrences fresh at the start that are still pending
                // try loose cliques (`seed(loose:)`).
                let late = arrived.filter { state.pending[$0] != nil }
                if !late.isEmpty { changed = try seed(late, in: scope, loose: true, isCancelled: isCancelled) }
            }
            if !changed { return }
        }
        // Still changing after the last pass: evaluated marks may be older than the last change.
        unsettled = true
    }

    /// Scopes with a pending occurrence that is fresh or was evaluated before the last change of a
    /// group of its scope, ascending: the only scopes `run` has work in. When the state is settled
    /// (`settledAt`), those are the scopes of the new occurrences and of groups changed since; else
    /// every pending occurrence is looked at.
    func scopesWithWork(fresh: [Int64]) -> [Scope] {
        if let settled = state.settledAt, settled <= state.groupsVersion {
            var out = Set<Scope>()
            for id in fresh { if let s = state.pending[id]?.scope ?? occurrences.scopeOf(id) { out.insert(s) } }
            if settled < state.groupsVersion {
                let groups = state.groups.values
                for i in groups.indices where groups[i].changedAt > settled { out.insert(groups[i].scope) }
            }
            return out.sorted()
        }
        var lastChange: [Scope: Int] = [:]
        let groups = state.groups.values
        for i in groups.indices { lastChange[groups[i].scope] = max(lastChange[groups[i].scope] ?? 0, groups[i].changedAt) }
        // A pending occurrence evaluated after the last change of its scope has no work.
        var out = Set<Scope>()
        let marks = state.pending.values
        for i in state.pending.indices {
            let mark = marks[i]
            guard let scope = mark.scope ?? occurrences.scopeOf(state.pending.keys[i]), !out.contains(scope) else { continue }
            let at = state.evaluatedAt(mark)
            if at == nil || at! < lastChange[scope] ?? 0 { out.insert(scope) }
        }
        return out.sorted()
    }
}

extension PatternEngine {
    /// Incremental refresh. `occurrences` are the owner's current eligible occurrences (all of
    /// them: ones missing from it leave their groups; unknown ones become pending). Only pending
    /// occurrences are evaluated, and an evaluated one only again after a group of its scope
    /// changed. A second refresh over the returned state changes nothing.
    ///
    /// `state` is consumed: a caller that passes its last copy (`refresh(state: consume s, …)`)
    /// lets the engine update it in place instead of copying its dictionaries first.
    ///
    /// `changes`: the ids that may have been added to or removed from `occurrences` since the call
    /// that returned `state` (see `OccurrenceChanges`); nil when not known, and every occurrence
    /// is compared with the state.
    ///
    /// With `judge`, no occurrence joins or founds a group without its yes (`Judge.swift`).
    ///
    /// `cache`: what the refresh that returned `state` derived from it (see `EngineCache` for
    /// when it may be handed in); refilled for the state returned. Without it, everything is
    /// derived from the state.
    public static func refresh(
        state: consuming PatternState, occurrences: [Int64: Occurrence], changes: OccurrenceChanges? = nil, constraints: Constraints,
        config: GroupingConfig = GroupingConfig(), cache: inout EngineCache, isCancelled: () -> Bool = { false },
        progress: (Double) -> Void = { _ in }, judge: Judge? = nil
    ) throws -> RefreshOutcome {
        var ws = Workspace(state: state, occurrences: occurrences, constraints: constraints, config: config)
        ws.evidence = SharedElementJudge.make(config: config, occurrences: occurrences)
        ws.judge = SharedElementJudge.compose(ws.evidence, outer: judge)
        ws.hasOuterJudge = judge != nil
        ws.outerJudge = judge
        if let kept = cache.take(for: ws.state, dimension: ws.dimension) { ws.adopt(kept) }
        let fresh = ws.reconcile(changes: changes)
        ws.newIDs = fresh
        try ws.checkDimensions(only: fresh)
        let scopes = ws.scopesWithWork(fresh: fresh)
        for (i, scope) in scopes.enumerated() {
            try ws.run(scope, isCancelled: isCancelled)
            progress(Double(i + 1) / Double(scopes.count))
        }
        progress(1)
        if judge != nil { ws.leaveAwaitingFresh() }
        if !ws.unsettled { ws.state.settledAt = ws.state.groupsVersion }
        ws.compactPending()
        ws.handOver(into: &cache)
        return ws.outcome
    }

    /// `refresh` with nothing kept from the previous refresh and nothing kept for the next.
    public static func refresh(
        state: consuming PatternState, occurrences: [Int64: Occurrence], changes: OccurrenceChanges? = nil, constraints: Constraints,
        config: GroupingConfig = GroupingConfig(), isCancelled: () -> Bool = { false },
        progress: (Double) -> Void = { _ in }, judge: Judge? = nil
    ) throws -> RefreshOutcome {
        var cache = EngineCache()
        return try refresh(state: consume state, occurrences: occurrences, changes: changes, constraints: constraints, config: config,
                           cache: &cache, isCancelled: isCancelled, progress: progress, judge: judge)
    }

    /// Occurrences leave at once (record deleted, permission off, new revision): removed from
    /// their groups and from pending; affected groups get a cleared label, a new version, a new
    /// medoid (with the stay check) and become dormant below two records. `occurrences` are the
    /// remaining eligible occurrences (the removed ones may be absent).
    public static func removeOccurrences(
        _ ids: Set<Int64>, from state: PatternState, occurrences: [Int64: Occurrence],
        config: GroupingConfig = GroupingConfig()
    ) -> RefreshOutcome {
        var remaining = occurrences
        for id in ids { remaining[id] = nil }
        var ws = Workspace(state: state, occurrences: remaining, constraints: Constraints(), config: config)
        _ = ws.remove(ids)
        return ws.outcome
    }

    /// Sets the client-written label of a group; refused unless `version` is the group's current one.
    public static func setLabel(_ state: PatternState, groupID: Int64, version: Int, label: String?) throws -> PatternState {
        guard var g = state.groups[groupID] else { throw GroupingError.unknownGroup(groupID) }
        guard g.version == version else { throw GroupingError.staleVersion(group: groupID, current: g.version, given: version) }
        g.label = label
        g.labelVersion = label == nil ? nil : version
        var s = state
        s.groups[groupID] = g
        return s
    }
}
