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
    /// Every occurrence id by scope, when a background had to be measured from the occurrences.
    var occurrenceIDsByScope: [Scope: [Int64]]?
    var lastStay: (scope: Scope, stay: Int)?
    /// occurrence → group, built on first use (a placement that only touches its candidate
    /// groups never needs it).
    private var groupIndex: [Int64: Int64]?
    var groupOf: [Int64: Int64] {
        mutating get { buildGroupIndex(); return groupIndex! }
        _modify { buildGroupIndex(); yield &groupIndex! }
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
    /// Profiles computed in this call, dropped when their group changes.
    var profileCache: [Int64: GroupProfile] = [:]
    /// The pending occurrences of the scope `run` works on, ascending, kept up to date by
    /// `scopePending()` (with the occurrences made pending since it last looked).
    var pendingList: (scope: Scope, ids: [Int64])?
    var pendingAdded: [Int64] = []
    /// While `run` works on a scope: a superset of its fresh pending occurrences (the fresh ones
    /// when it began, and every one made pending since).
    var mayBeFresh: Set<Int64> = []
    /// The first pass's work, found by `run`'s scan of the marks.
    var firstWork: [Int64]?
    /// Some pending entry was removed since `pendingList` was last brought up to date.
    var pendingRemoved = false
    /// A scope ran out of passes while still changing (the state cannot be marked settled).
    var unsettled = false
    /// Per scope, its groups as of `touchLog` index `at` (see `scopeGroups(_:)`).
    var snapshots: [Scope: (at: Int, groups: ScopeGroups)] = [:]
    /// Occurrences whose pending mark this call set, changed or removed (what a store that keeps
    /// marks one by one writes; see `RefreshOutcome.changedPending`).
    var pendingChanged: Set<Int64> = []
    /// Every pending mark was replaced (a rebuild): write them all.
    var pendingReplaced = false
    /// Pending vectors per scope (see `pendingRows(_:)`).
    var rows: [Scope: PendingRows] = [:]
    /// What the previous refresh of this very state derived (taken over by `refresh`), else nil.
    var engineCache: EngineCache?
    /// The vector dimension (of any occurrence; a refresh checks that all agree).
    let dimension: Int
    /// The evidence judge every automatic membership needs, when one is configured (`Judge.swift`).
    var judge: Judge?
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

    /// The index the previous refresh of this very state left (current: every membership change
    /// since went through `attach`/`detach`).
    mutating func adoptGroupIndex(_ index: [Int64: Int64]?) {
        if groupIndex == nil { groupIndex = index }
    }

    private mutating func buildGroupIndex() {
        guard groupIndex == nil else { return }
        var index: [Int64: Int64] = [:]
        index.reserveCapacity(state.groups.values.reduce(0) { $0 + $1.members.count })
        for (gid, g) in state.groups {
            for m in g.members { index[m.occurrenceID] = gid }
        }
        groupIndex = index
    }

    /// Records a membership change of group `id`.
    mutating func touch(_ id: Int64) {
        state.groupsVersion += 1
        state.groups[id]!.version += 1
        state.groups[id]!.changedAt = state.groupsVersion
        state.groups[id]!.centroid = nil
        changedGroups.insert(id)
        touchLog.append((state.groupsVersion, id))
        profileCache[id] = nil
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
        groupIndex?[occurrence] = nil
        state.groups[gid]!.members.removeAll { $0.occurrenceID == occurrence }
        state.groups[gid]!.label = nil
        state.groups[gid]!.labelVersion = nil
        touch(gid)
    }

    /// Adds `occurrence` to group `gid` in canonical position. Does not settle.
    mutating func attach(_ occurrence: Int64, to gid: Int64, source: MembershipSource) {
        if let index = groupIndex { precondition(index[occurrence] == nil, "occurrence already has a group") }
        state.pending[occurrence] = nil
        pendingChanged.insert(occurrence)
        pendingRemoved = true
        groupIndex?[occurrence] = gid
        let m = Membership(occurrenceID: occurrence, groupID: gid, source: source)
        let at = state.groups[gid]!.members.firstIndex { $0.occurrenceID > occurrence } ?? state.groups[gid]!.members.count
        state.groups[gid]!.members.insert(m, at: at)
        touch(gid)
    }

    mutating func makePending(_ occurrence: Int64) {
        state.pending[occurrence] = PendingMark(scope: occurrences.scopeOf(occurrence))
        pendingChanged.insert(occurrence)
        if pendingList != nil {
            pendingAdded.append(occurrence)
            mayBeFresh.insert(occurrence)
        }
    }

    /// Pending occurrences of `scope`, ascending (from the list `run` keeps when it is this scope's).
    mutating func scopePending(_ scope: Scope) -> [Int64] {
        guard let list = pendingList, list.scope == scope else { return pending(in: scope) }
        if !pendingRemoved && pendingAdded.isEmpty { return list.ids }
        var ids = pendingRemoved ? list.ids.filter { state.pending.index(forKey: $0) != nil } : list.ids
        pendingRemoved = false
        // Added ones go in at their place (the list stays ascending).
        for id in Set(pendingAdded).sorted() where state.pending.index(forKey: id) != nil {
            guard let at = occurrences.index(forKey: id), occurrences.values[at].category == scope.category,
                  occurrences.values[at].owner == scope.owner else { continue }
            var lo = 0, hi = ids.count
            while lo < hi { let mid = (lo + hi) / 2; if ids[mid] < id { lo = mid + 1 } else { hi = mid } }
            if lo == ids.count || ids[lo] != id { ids.insert(id, at: lo) }
        }
        pendingAdded = []
        pendingList = (scope, ids)
        return ids
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
            pendingRemoved = true
        }
        // (The stay threshold of the group's scope, also outside `run`: corrections, removals.)
        let stay = stayThreshold(state.groups[gid]!.scope)
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
                !$0.source.isUserDecided && config.quantise(Vectors.dot(occurrences.vectorOf($0.occurrenceID)!, mv)) < stay
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

    /// Removes occurrences from groups and from pending, then settles the affected groups.
    mutating func remove(_ ids: Set<Int64>) -> [Int64] {
        noneLeft = false
        var affected = Set<Int64>()
        for id in ids.sorted() {
            state.pending[id] = nil
            pendingChanged.insert(id)
            pendingRemoved = true
            if let gid = detach(id) { affected.insert(gid) }
        }
        for gid in affected.sorted() { settle(gid) }
        return affected.sorted()
    }

    /// Pending occurrences of `scope`, ascending.
    /// (After `reconcile`, which leaves no pending entry without its occurrence.)
    func pending(in scope: Scope) -> [Int64] { scanPending(scope, lastChange: 0).all }

    /// Pending occurrences of `scope`, ascending; those of them that are fresh; and those fresh or
    /// evaluated before `lastChange`, ascending (one look at each mark).
    func scanPending(_ scope: Scope, lastChange: Int) -> (all: [Int64], fresh: Set<Int64>, work: [Int64]) {
        var out: [Int64] = []
        var fresh = Set<Int64>()
        var work: [Int64] = []
        let marks = state.pending.values
        let watermark = state.checked[scope]
        for i in state.pending.indices {
            let id = state.pending.keys[i]
            let mark = marks[i]
            if let s = mark.scope {
                guard s.category == scope.category && s.owner == scope.owner else { continue }
            } else {
                guard let at = occurrences.index(forKey: id), occurrences.values[at].category == scope.category,
                      occurrences.values[at].owner == scope.owner else { continue }
            }
            out.append(id)
            if let at = PatternState.evaluatedAt(mark, watermark: watermark) {
                if at < lastChange { work.append(id) }
            } else {
                fresh.insert(id)
                work.append(id)
            }
        }
        return (out.sorted(), fresh, work.sorted())
    }

    /// The groups of `scope` as they are now: from the snapshot kept for the scope (or the one the
    /// previous refresh of this state left in its cache), brought up to date with the groups
    /// touched since; built from all groups the first time.
    mutating func scopeGroups(_ scope: Scope) -> ScopeGroups {
        let now = touchLog.count
        var base: ScopeGroups
        var from: Int
        if let s = snapshots[scope] {
            if s.at == now { return s.groups }
            (from, base) = s
        } else if let cache = engineCache, cache.dimension == dimension, let cached = cache.scopes.removeValue(forKey: scope) {
            // Taken out of the cache (so that its matrix is not shared) until `handOverCache`.
            (from, base) = (0, cached)
        } else {
            let built = ScopeGroups(scope, state, occurrences, d: dimension)
            snapshots[scope] = (now, built)
            return built
        }
        snapshots[scope] = nil
        var changed: [Int64] = []
        for e in touchLog[from...] where state.groups[e.gid].map({ $0.category == scope.category && $0.owner == scope.owner }) == true {
            changed.append(e.gid)
        }
        base.apply(changed, state, occurrences, d: dimension)
        snapshots[scope] = (now, base)
        return base
    }

    /// The vectors of the pending occurrences of `scope`, in line with its pending list (from the
    /// previous refresh's cache when there is one, patched).
    mutating func pendingRows(_ scope: Scope) -> PendingRows {
        let list = scopePending(scope)
        var r = rows.removeValue(forKey: scope)
            ?? engineCache.flatMap { $0.dimension == dimension ? $0.pendingRows.removeValue(forKey: scope) : nil }
            ?? PendingRows(d: dimension)
        r.sync(to: list, occurrences)
        rows[scope] = r
        return r
    }

    /// A build starts with every occurrence pending and ends with a fraction of them: the map keeps
    /// its capacity, and every later look-up pays for the spread. Re-packed when mostly empty.
    mutating func compactPending() {
        guard state.pending.capacity > 4 * max(64, state.pending.count) else { return }
        var packed = [Int64: PendingMark](minimumCapacity: state.pending.count)
        for (id, mark) in state.pending { packed[id] = mark }
        state.pending = packed
    }

    /// Leaves the scope snapshots in a cache for the next refresh of the state being returned,
    /// and gives that state its claim. Call last: any later edit of the state drops the claim.
    mutating func handOverCache() {
        let cache = engineCache ?? EngineCache()
        if cache.dimension != dimension { cache.scopes = [:]; cache.dimension = dimension }
        var touched = Set<Scope>()
        for e in touchLog { if let g = state.groups[e.gid] { touched.insert(g.scope) } }
        engineCache = cache
        for scope in Set(snapshots.keys).union(cache.scopes.keys.filter(touched.contains)) {
            cache.scopes[scope] = scopeGroups(scope)
        }
        snapshots = [:]
        if cache.dimension == dimension { for (scope, r) in rows { cache.pendingRows[scope] = r } } else { cache.pendingRows = [:] }
        rows = [:]
        // (Every profile left is current: a membership change drops its group's.)
        cache.profiles = cache.dimension == dimension ? profileCache : [:]
        profileCache = [:]
        cache.groupIndex = groupIndex
        // A basis is still right for the next refresh when no known occurrence left in this one.
        if !noneLeft { cache.backgrounds = [:] }
        for (scope, b) in backgrounds { cache.backgrounds[scope] = b }
        state.cache = cache
        state.cacheClaim = cache.issue()
    }
}
