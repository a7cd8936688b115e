import LinearAlgebra

/// A mutable working copy of a state while one engine call runs. Every membership change goes
/// through `attach`/`detach` (which keep versions and the occurrence index right) followed by
/// `settle` (medoid, exemplars, stay check, dormancy).
struct Workspace {
    var state: PatternState
    let occurrences: [Int64: Occurrence]
    let constraints: Constraints
    /// The thresholds in force: `baseConfig`, adapted to the background of the scope `run` works on.
    var config: GroupingConfig
    /// The thresholds the engine was called with.
    let baseConfig: GroupingConfig
    /// The occurrences new to the state in this call (set by `reconcile`).
    var newIDs: [Int64] = []
    /// `reconcile` found that no occurrence known to the state left.
    var noneLeft = false
    /// Per scope, the ids a background level was measured on and the level (see `Background.swift`).
    var backgrounds: [Scope: BackgroundBasis] = [:]
    /// Per scope, the move of its level in force made by this call (see `levelInForce(_:)`).
    var levelChanges: [Scope: LevelChange] = [:]
    /// Every occurrence id by scope, when a background had to be measured from the occurrences.
    var occurrenceIDsByScope: [Scope: [Int64]]?
    var lastStay: (scope: Scope, stay: Int)?
    /// What this call keeps derived from the state, adopted from and handed back to `EngineCache` whole.
    var derived = Derived()
    /// occurrence → group (`derived.groupIndex`, built on first use).
    var groupOf: [Int64: Int64] {
        mutating get { buildGroupIndex(); return derived.groupIndex! }
        _modify { buildGroupIndex(); yield &derived.groupIndex! }
    }
    var changedGroups: Set<Int64> = []
    var createdGroups: Set<Int64> = []
    var assigned = 0
    var evicted = 0
    var combined = 0
    /// Occurrences evicted since the current pass began (they wait for the next pass).
    var recentlyEvicted: Set<Int64> = []
    /// (groupsVersion, group) of every membership change made by this call, in order.
    var touchLog: [(at: Int, gid: Int64)] = []
    /// For each group this call changed: the version since which its medoid has been the one it
    /// has now (its `changedAt` before the call's first change of it, or the version of the
    /// call's last change that gave it another medoid). See `medoidSince(_:)`.
    var medoidKept: [Int64: Int] = [:]
    /// A scope ran out of passes while still changing (the state cannot be marked settled).
    var unsettled = false
    /// Occurrences whose pending mark this call set, changed or removed (what a store that keeps
    /// marks one by one writes; see `RefreshOutcome.changedPending`).
    var pendingChanged = ChangedMarks()
    /// Every pending mark was replaced (a rebuild): write them all.
    var pendingReplaced = false
    /// The vector dimension (of any occurrence; a refresh checks that all agree).
    let dimension: Int
    /// The evidence judge every automatic membership needs, when one is configured (`Judge.swift`).
    var judge: Judge?
    /// A judge besides the shared-element rule (client or remote) was given.
    var hasOuterJudge = false
    /// That judge: under it, placement follows `JudgedPlacement.swift`.
    var outerJudge: Judge?
    /// Labels the judge suggested with a yes, by the occurrence asked about.
    var suggestedLabels: [Int64: String] = [:]
    /// The shared-element rule, when on (`SharedElement.swift`); `judge` asks it first.
    var evidence: SharedElementJudge?
    /// Occurrences the judge gave no answer about in this call.
    var awaitingJudge: Set<Int64> = []
    /// Pending occurrences left waiting for the judge (set by `leaveAwaitingFresh`).
    var waitingForJudge = 0

    init(state: PatternState, occurrences: [Int64: Occurrence], constraints: Constraints, config: GroupingConfig) {
        self.state = state
        self.occurrences = occurrences
        self.constraints = constraints
        self.config = config
        self.baseConfig = config
        dimension = occurrences.first?.value.vector.count ?? 0
    }

    /// Starts from what the previous refresh of this very state derived: its scope group lists
    /// (as snapshots at the start of the call), pending and tag indexes, profiles, occurrence index
    /// and background bases.
    mutating func adopt(_ cache: consuming EngineCache) {
        derived = cache.derived
    }

    private mutating func buildGroupIndex() {
        guard derived.groupIndex == nil else { return }
        var index: [Int64: Int64] = [:]
        index.reserveCapacity(state.groups.values.reduce(0) { $0 + $1.members.count })
        for (gid, g) in state.groups {
            for m in g.members { index[m.occurrenceID] = gid }
        }
        derived.groupIndex = index
    }

    /// Records a membership change of group `id`.
    mutating func touch(_ id: Int64) {
        if medoidKept[id] == nil { medoidKept[id] = state.groups[id]!.changedAt }
        state.groupsVersion += 1
        state.groups[id]!.version += 1
        state.groups[id]!.changedAt = state.groupsVersion
        state.groups[id]!.centroid = nil
        changedGroups.insert(id)
        touchLog.append((state.groupsVersion, id))
        derived.profiles[id] = nil
    }

    /// Removes `occurrence` from its group (label cleared). Does not settle.
    @discardableResult
    mutating func detach(_ occurrence: Int64) -> Int64? {
        guard let gid = groupOf[occurrence] else { return nil }
        detach(occurrence, from: gid)
        return gid
    }

    /// Removes `occurrence` from group `gid`, which holds it (label cleared). Does not settle.
    mutating func detach(_ occurrence: Int64, from gid: Int64) {
        derived.groupIndex?[occurrence] = nil
        state.groups[gid]!.members.removeAll { $0.occurrenceID == occurrence }
        state.groups[gid]!.label = nil
        state.groups[gid]!.labelVersion = nil
        touch(gid)
    }

    /// Adds `occurrence` to group `gid` in canonical position. Does not settle.
    mutating func attach(_ occurrence: Int64, to gid: Int64, source: MembershipSource) {
        if let index = derived.groupIndex { precondition(index[occurrence] == nil, "occurrence already has a group") }
        state.pending[occurrence] = nil
        pendingChanged.insert(occurrence)
        derived.groupIndex?[occurrence] = gid
        let m = Membership(occurrenceID: occurrence, groupID: gid, source: source)
        let at = state.groups[gid]!.members.firstIndex { $0.occurrenceID > occurrence } ?? state.groups[gid]!.members.count
        state.groups[gid]!.members.insert(m, at: at)
        touch(gid)
    }

    mutating func makePending(_ occurrence: Int64) {
        state.pending[occurrence] = PendingMark(scope: occurrences.scopeOf(occurrence))
        pendingChanged.insert(occurrence)
    }

    /// Pending occurrences of `scope`, ascending.
    mutating func scopePending(_ scope: Scope) -> [Int64] {
        var index = takeIndex(scope)
        defer { keepIndex(index) }
        return index.all
    }

    /// Pending occurrences of `scope` that are fresh or were evaluated before `lastChange`, ascending.
    mutating func duePending(_ scope: Scope, lastChange: Int) -> [Int64] {
        let index = takeIndex(scope)
        defer { keepIndex(index) }
        return index.due(lastChange: lastChange, watermark: state.checked[scope], state: state)
    }

    /// Fresh pending occurrences of `scope`, ascending.
    mutating func freshPending(_ scope: Scope) -> [Int64] {
        let index = takeIndex(scope)
        defer { keepIndex(index) }
        return index.fresh
    }

    /// A new empty group with the next id from the persisted counter.
    mutating func newGroup(_ scope: Scope) -> Int64 {
        let id = state.nextGroupID
        state.nextGroupID += 1
        state.groups[id] = Group(id: id, owner: scope.owner, category: scope.category, changedAt: state.groupsVersion)
        createdGroups.insert(id)
        return id
    }

    /// Recomputes medoid and exemplars; evicts automatic members below τ_stay against the new
    /// medoid to pending (repeating until stable); marks the group dormant below two records.
    /// Returns the evicted occurrences.
    @discardableResult
    mutating func settle(_ gid: Int64) -> [Int64] {
        var out: [Int64] = []
        // Members whose occurrence is gone leave first.
        for m in state.groups[gid]!.members where occurrences.index(forKey: m.occurrenceID) == nil {
            noneLeft = false
            detach(m.occurrenceID, from: gid)
            state.pending[m.occurrenceID] = nil
            pendingChanged.insert(m.occurrenceID)
        }
        // (The stay threshold of the group's scope, also outside `run`: corrections, removals.)
        let stay = stayThreshold(state.groups[gid]!.scope)
        let medoidBefore = state.groups[gid]!.medoid
        defer {
            if state.groups[gid]!.medoid != medoidBefore { medoidKept[gid] = state.groups[gid]!.changedAt }
        }
        while true {
            let g = state.groups[gid]!
            let ids = g.memberIDs
            let sum = GroupGeometry.sum(ids, occurrences)
            guard let medoid = GroupGeometry.medoid(ids, sum: sum, occurrences, config: config) else {
                state.groups[gid]!.medoid = nil
                state.groups[gid]!.exemplars = []
                state.groups[gid]!.centroid = nil
                break
            }
            state.groups[gid]!.medoid = medoid
            state.groups[gid]!.centroid = PackedVector(Vectors.normalized(sum))
            state.groups[gid]!.exemplars = GroupGeometry.exemplars(ids, medoid: medoid, occurrences, config: config)
            let mv = occurrences.vectorOf(medoid)!
            let below = g.members.filter {
                $0.source.staysChecked && config.quantise(Vectors.dot(occurrences.vectorOf($0.occurrenceID)!, mv)) < stay
            }
            if below.isEmpty { break }
            for m in below {
                detach(m.occurrenceID, from: gid)
                makePending(m.occurrenceID)
                evicted += 1
                recentlyEvicted.insert(m.occurrenceID)
                out.append(m.occurrenceID)
            }
        }
        let records = Set(state.groups[gid]!.members.compactMap { occurrences.recordOf($0.occurrenceID) })
        state.groups[gid]!.state = records.count >= 2 ? .active : .dormant
        return out
    }

    /// The version since which group `gid` has had its current medoid: a pending mark whose
    /// certificate holds as of that version or later was evaluated against this very medoid. (A
    /// medoid changes only when the members do, in `settle`; a group this call has not changed
    /// has had it since its `changedAt`.)
    func medoidSince(_ gid: Int64) -> Int {
        medoidKept[gid] ?? state.groups[gid]!.changedAt
    }

    /// Removes occurrences from groups and from pending, then settles the affected groups.
    mutating func remove(_ ids: Set<Int64>) -> [Int64] {
        noneLeft = false
        var affected = Set<Int64>()
        for id in ids.sorted() {
            state.pending[id] = nil
            pendingChanged.insert(id)
            if let gid = detach(id) { affected.insert(gid) }
        }
        for gid in affected.sorted() { settle(gid) }
        return affected.sorted()
    }

    /// The groups of `scope` as they are now: from the snapshot kept for the scope (see `adopt`),
    /// brought up to date with the groups touched since; built from all groups the first time.
    mutating func scopeGroups(_ scope: Scope) -> ScopeGroups {
        let now = touchLog.count
        var base: ScopeGroups
        var from: Int
        if let s = derived.snapshots[scope] {
            if s.at == now { return s.groups }
            (from, base) = s
        } else {
            let built = ScopeGroups(scope, state, occurrences, d: dimension)
            derived.snapshots[scope] = (now, built)
            return built
        }
        derived.snapshots[scope] = nil
        var changed: [Int64] = []
        for e in touchLog[from...] where state.groups[e.gid].map({ $0.category == scope.category && $0.owner == scope.owner }) == true {
            changed.append(e.gid)
        }
        base.apply(changed, state, occurrences, d: dimension)
        derived.snapshots[scope] = (now, base)
        return base
    }

    /// The pending index of `scope`, up to date with the marks, taken out of the workspace (so
    /// that using it copies nothing); hand it back with `keepIndex`. Built from the marks when
    /// neither this call nor the previous refresh (`adopt`) made one.
    mutating func takeIndex(_ scope: Scope) -> PendingIndex {
        let k = config.candidateK
        var index = derived.pendingIndexes.removeValue(forKey: scope)
        if index?.k != k || index?.d != dimension { index = nil }
        if index == nil {
            index = PendingIndex(scope, state, occurrences, k: k, d: dimension)
            index!.cursor = pendingChanged.log.count
        }
        index!.sync(pendingChanged.log, state, occurrences)
        index!.useCannotLinks(constraints.cannotLink, occurrences)
        return index!
    }

    mutating func keepIndex(_ index: PendingIndex) { derived.pendingIndexes[index.scope] = index }

    /// A build starts with every occurrence pending and ends with a fraction of them: the map keeps
    /// its capacity, and every later look-up pays for the spread. Re-packed when mostly empty.
    mutating func compactPending() {
        guard state.pending.capacity > 4 * max(64, state.pending.count) else { return }
        var packed = [Int64: PendingMark](minimumCapacity: state.pending.count)
        for (id, mark) in state.pending { packed[id] = mark }
        state.pending = packed
    }

    /// Leaves what this call derived in `cache`, brought up to date with the state being
    /// returned, for the next refresh of that state. Call last.
    mutating func handOver(into cache: inout EngineCache) {
        var out = EngineCache()
        out.dimension = dimension
        var touched = Set<Scope>()
        for e in touchLog { if let g = state.groups[e.gid] { touched.insert(g.scope) } }
        // (A scope no membership change of this call touched keeps its snapshot as it is.)
        for scope in Array(derived.snapshots.keys) {
            out.derived.snapshots[scope] = (0, touched.contains(scope) ? scopeGroups(scope) : derived.snapshots[scope]!.groups)
        }
        // (Moved out, not copied: a shared copy would make the syncs below copy their vectors.)
        var kept = Derived()
        swap(&kept, &derived)
        // Every index, the ones this call did not use too, in line with the state returned.
        for scope in Array(kept.pendingIndexes.keys) {
            var index = kept.pendingIndexes.removeValue(forKey: scope)!
            guard index.d == dimension else { continue }
            index.sync(pendingChanged.log, state, occurrences)
            index.cursor = 0
            out.derived.pendingIndexes[scope] = index
        }
        for scope in Array(kept.tagIndexes.keys) {
            var t = kept.tagIndexes.removeValue(forKey: scope)!
            t.update(touchLog, state, occurrences)
            t.at = 0
            out.derived.tagIndexes[scope] = t
        }
        // (Every profile left is current: a membership change drops its group's.)
        out.derived.profiles = kept.profiles
        out.derived.groupIndex = kept.groupIndex
        // A basis is still right for the next refresh when no known occurrence left in this one.
        if noneLeft { out.derived.backgrounds = kept.backgrounds }
        for (scope, b) in backgrounds { out.derived.backgrounds[scope] = b }
        out.filledFor = EngineCache.Counters(state)
        cache = out
    }
}
