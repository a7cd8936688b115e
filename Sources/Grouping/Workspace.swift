import LinearAlgebra

/// A mutable working copy of a state while one engine call runs. Every membership change goes
/// through `attach`/`detach` (which keep versions and the occurrence index right) followed by
/// `settle` (medoid, exemplars, stay check, dormancy).
struct Workspace {
    var state: PatternState
    let occurrences: [Int64: Occurrence]
    let constraints: Constraints
    let config: GroupingConfig
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
    /// Occurrences evicted since the current pass began (they wait for the next pass).
    var recentlyEvicted: Set<Int64> = []
    /// (groupsVersion, group) of every membership change made by this call, in order.
    var touchLog: [(at: Int, gid: Int64)] = []
    /// Profiles and unit centroids computed in this call, dropped when their group changes.
    var profileCache: [Int64: GroupProfile] = [:]
    var unitSumCache: [Int64: [Float]] = [:]
    /// The pending occurrences of the scope `run` works on, ascending, kept up to date by
    /// `scopePending()` (with the occurrences made pending since it last looked).
    var pendingList: (scope: Scope, ids: [Int64])?
    var pendingAdded: [Int64] = []

    init(state: PatternState, occurrences: [Int64: Occurrence], constraints: Constraints, config: GroupingConfig) {
        self.state = state
        self.occurrences = occurrences
        self.constraints = constraints
        self.config = config
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
        changedGroups.insert(id)
        touchLog.append((state.groupsVersion, id))
        profileCache[id] = nil
        unitSumCache[id] = nil
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
        groupIndex?[occurrence] = gid
        let m = Membership(occurrenceID: occurrence, groupID: gid, source: source)
        let at = state.groups[gid]!.members.firstIndex { $0.occurrenceID > occurrence } ?? state.groups[gid]!.members.count
        state.groups[gid]!.members.insert(m, at: at)
        touch(gid)
    }

    mutating func makePending(_ occurrence: Int64) {
        state.pending[occurrence] = .fresh
        if pendingList != nil { pendingAdded.append(occurrence) }
    }

    /// Pending occurrences of `scope`, ascending (from the list `run` keeps when it is this scope's).
    mutating func scopePending(_ scope: Scope) -> [Int64] {
        guard let list = pendingList, list.scope == scope else { return pending(in: scope) }
        var ids = list.ids.filter { state.pending.index(forKey: $0) != nil }
        if !pendingAdded.isEmpty {
            let known = Set(ids)
            for id in Set(pendingAdded) where !known.contains(id) && state.pending.index(forKey: id) != nil {
                guard let at = occurrences.index(forKey: id), occurrences.values[at].category == scope.category,
                      occurrences.values[at].owner == scope.owner else { continue }
                ids.append(id)
            }
            ids.sort()
            pendingAdded = []
        }
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
            detach(m.occurrenceID, from: gid)
            state.pending[m.occurrenceID] = nil
        }
        let stay = config.quantise(config.tauStay)
        while true {
            let g = state.groups[gid]!
            let ids = g.memberIDs
            let sum = GroupGeometry.sum(ids, occurrences)
            guard let medoid = GroupGeometry.medoid(ids, sum: sum, occurrences, config: config) else {
                state.groups[gid]!.medoid = nil
                state.groups[gid]!.exemplars = []
                break
            }
            state.groups[gid]!.medoid = medoid
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
        var affected = Set<Int64>()
        for id in ids.sorted() {
            state.pending[id] = nil
            if let gid = detach(id) { affected.insert(gid) }
        }
        for gid in affected.sorted() { settle(gid) }
        return affected.sorted()
    }

    /// Pending occurrences of `scope`, ascending.
    func pending(in scope: Scope) -> [Int64] {
        var out: [Int64] = []
        for id in state.pending.keys {
            guard let at = occurrences.index(forKey: id) else { continue }
            if occurrences.values[at].category == scope.category && occurrences.values[at].owner == scope.owner { out.append(id) }
        }
        return out.sorted()
    }

    /// Groups of `scope`, ascending.
    func groups(in scope: Scope) -> [Int64] {
        var out: [Int64] = []
        let values = state.groups.values
        for i in values.indices where values[i].category == scope.category && values[i].owner == scope.owner {
            out.append(values[i].id)
        }
        return out.sorted()
    }
}
