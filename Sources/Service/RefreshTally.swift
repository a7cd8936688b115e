import Grouping

/// Where a refresh leaves the refreshed owners' eligible occurrences, counted so that the numbers add
/// up: `occurrences == inGroups + pending`, and `assigned + seeded` of them were placed by this run.
struct RefreshTally: Sendable {
    /// Eligible occurrences (record permission on, current revision, vector of the current index version).
    var occurrences = 0
    /// Occurrences that are members of a group (active or dormant).
    var inGroups = 0
    /// Occurrences no group holds: not close enough to a group's representative and examples, nor to
    /// occurrences of enough other records to start a group.
    var pending = 0
    /// Occurrences that joined groups this run created.
    var seeded = 0
    /// Distinct records with an occurrence in an active group.
    var recordsGrouped = 0
    /// Groups with at least two records.
    var activeGroups = 0

    /// The tally of one owner's state after a run; `before` is the group ids that existed before it.
    init(state: PatternState, occurrences occ: [Int64: Occurrence], groupsBefore before: Set<Int64>) {
        var records = Set<String>()
        for g in state.groups.values {
            inGroups += g.members.count
            if !before.contains(g.id) { seeded += g.members.count }
            guard g.state == .active else { continue }
            activeGroups += 1
            for m in g.members { if let o = occ[m.occurrenceID] { records.insert(o.recordID) } }
        }
        pending = state.pending.count
        occurrences = inGroups + pending
        recordsGrouped = records.count
    }

    init() {}

    static func + (a: Self, b: Self) -> Self {
        var t = a
        t.occurrences += b.occurrences; t.inGroups += b.inGroups; t.pending += b.pending
        t.seeded += b.seeded; t.recordsGrouped += b.recordsGrouped; t.activeGroups += b.activeGroups
        return t
    }
}
