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

    public init() {}
}

/// The result of an engine call: the new state to persist and what changed.
public struct RefreshOutcome: Sendable, Hashable {
    public var state: PatternState
    public var stats: RefreshStats
    /// Groups created or whose membership changed, ascending. Persist these (and `state.pending`).
    public var changedGroups: [Int64]
}

extension Workspace {
    var outcome: RefreshOutcome {
        var stats = RefreshStats()
        stats.groupsCreated = createdGroups.count
        stats.groupsChanged = changedGroups.subtracting(createdGroups).count
        let touched = changedGroups.union(createdGroups)
        stats.groupsDormant = touched.filter { state.groups[$0]?.state == .dormant }.count
        stats.assigned = assigned
        stats.evicted = evicted
        stats.pending = state.pending.count
        return RefreshOutcome(state: state, stats: stats, changedGroups: touched.sorted())
    }

    /// Checks that every vector has the same dimension.
    func checkDimensions() throws {
        // The lowest id sets the dimension; the lowest mismatching id is reported (no sort needed).
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

    /// Brings the state in line with the current eligible occurrences: members and pending entries
    /// whose occurrence is gone leave; occurrences not known yet become fresh pending.
    mutating func reconcile() {
        if reconcileQuickly() { return }
        var gone = Set<Int64>()
        var known = 0, maxKnown = Int64.min
        for g in state.groups.values {
            for m in g.members {
                known += 1
                maxKnown = max(maxKnown, m.occurrenceID)
                if occurrences.index(forKey: m.occurrenceID) == nil { gone.insert(m.occurrenceID) }
            }
        }
        for id in state.pending.keys {
            known += 1
            maxKnown = max(maxKnown, id)
            if occurrences.index(forKey: id) == nil { gone.insert(id) }
        }
        if !gone.isEmpty { _ = remove(gone) }
        let expectedNew = occurrences.count - (known - gone.count)
        guard expectedNew != 0 else { return }
        // New occurrences usually carry ids above every known one; otherwise look at all of them.
        var fresh: [Int64] = []
        for id in occurrences.keys where id > maxKnown { fresh.append(id) }
        if fresh.count != expectedNew {
            fresh = []
            for id in occurrences.keys where groupOf[id] == nil && state.pending.index(forKey: id) == nil { fresh.append(id) }
        }
        for id in fresh { makePending(id) }
    }

    /// The common case without a dictionary look-up per occurrence: every known id (member or
    /// pending) is still there and the new ones are above all of them. The known ids are compared
    /// with the occurrence ids up to the largest known one by count and two 64-bit set checksums.
    /// Returns false (nothing done) when that cannot be shown.
    private mutating func reconcileQuickly() -> Bool {
        func mix(_ x: Int64, _ salt: UInt64) -> UInt64 {
            var z = UInt64(bitPattern: x) &+ salt
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let a: UInt64 = 0x9E37_79B9_7F4A_7C15, b: UInt64 = 0xD1B5_4A32_D192_ED03
        var known = 0, maxKnown = Int64.min, sumKnown: UInt64 = 0, xorKnown: UInt64 = 0
        let groups = state.groups.values
        for i in groups.indices {
            for m in groups[i].members {
                known += 1
                maxKnown = max(maxKnown, m.occurrenceID)
                sumKnown &+= mix(m.occurrenceID, a)
                xorKnown ^= mix(m.occurrenceID, b)
            }
        }
        for id in state.pending.keys {
            known += 1
            maxKnown = max(maxKnown, id)
            sumKnown &+= mix(id, a)
            xorKnown ^= mix(id, b)
        }
        var fresh: [Int64] = []
        var below = 0, sumBelow: UInt64 = 0, xorBelow: UInt64 = 0
        for id in occurrences.keys {
            if id > maxKnown {
                fresh.append(id)
            } else {
                below += 1
                sumBelow &+= mix(id, a)
                xorBelow ^= mix(id, b)
            }
        }
        guard below == known, sumBelow == sumKnown, xorBelow == xorKnown else { return false }
        for id in fresh { makePending(id) }
        return true
    }

    /// Runs assignment and seeding passes over one scope until nothing changes (or `maxPasses`).
    mutating func run(_ scope: Scope, isCancelled: () -> Bool) throws {
        pendingList = (scope, pending(in: scope))
        pendingAdded = []
        defer { pendingList = nil; pendingAdded = [] }
        try passes(scope, isCancelled: isCancelled)
        try certify(scope, isCancelled: isCancelled)
    }

    private mutating func passes(_ scope: Scope, isCancelled: () -> Bool) throws {
        for _ in 0..<max(1, config.maxPasses) {
            let lastChange = groups(in: scope).map { state.groups[$0]!.changedAt }.max() ?? 0
            recentlyEvicted = []
            let pend = scopePending(scope)
            let work = pend.filter { (state.pending[$0]!.evaluatedAt ?? -1) < lastChange || state.pending[$0]!.evaluatedAt == nil }
            if work.isEmpty { return }
            var changed = try assign(work, in: scope, isCancelled: isCancelled)
            // Evicted occurrences wait for the next pass rather than join another group in this one.
            let fresh = scopePending(scope).filter { state.pending[$0]!.evaluatedAt == nil && !recentlyEvicted.contains($0) }
            if !fresh.isEmpty { changed = try seed(fresh, in: scope, isCancelled: isCancelled) || changed }
            if !changed { return }
        }
    }

    /// Scopes with a pending occurrence that is fresh or was evaluated before the last change of a
    /// group of its scope, ascending: the only scopes `run` has work in.
    mutating func scopesWithWork() -> [Scope] {
        var lastChange: [Scope: Int] = [:]
        let groups = state.groups.values
        for i in groups.indices {
            let s = Scope(owner: groups[i].owner, category: groups[i].category)
            if groups[i].changedAt > lastChange[s] ?? 0 { lastChange[s] = groups[i].changedAt }
        }
        var out = Set<Scope>()
        var last: Scope?
        let marks = state.pending.values
        for i in state.pending.indices {
            let id = state.pending.keys[i]
            guard let at = occurrences.index(forKey: id) else { continue }
            let o = occurrences.values
            // Consecutive pending entries often share a scope: compare before building a new one.
            if let l = last, l.category == o[at].category, l.owner == o[at].owner, out.contains(l) { continue }
            let scope = Scope(owner: o[at].owner, category: o[at].category)
            last = scope
            if out.contains(scope) { continue }
            let evaluatedAt = marks[i].evaluatedAt
            if evaluatedAt == nil || evaluatedAt! < lastChange[scope] ?? 0 { out.insert(scope) }
        }
        return out.sorted()
    }
}

extension PatternEngine {
    /// Incremental refresh. `occurrences` are the owner's current eligible occurrences (all of
    /// them: ones missing from it leave their groups; unknown ones become pending). Only pending
    /// occurrences are evaluated, and an evaluated one only again after a group of its scope
    /// changed. A second refresh over the returned state changes nothing.
    public static func refresh(
        state: PatternState, occurrences: [Int64: Occurrence], constraints: Constraints,
        config: GroupingConfig = GroupingConfig(), isCancelled: () -> Bool = { false },
        progress: (Double) -> Void = { _ in }
    ) throws -> RefreshOutcome {
        var ws = Workspace(state: state, occurrences: occurrences, constraints: constraints, config: config)
        try ws.checkDimensions()
        ws.reconcile()
        let scopes = ws.scopesWithWork()
        for (i, scope) in scopes.enumerated() {
            try ws.run(scope, isCancelled: isCancelled)
            progress(Double(i + 1) / Double(scopes.count))
        }
        progress(1)
        return ws.outcome
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
