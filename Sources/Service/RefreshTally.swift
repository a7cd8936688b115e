import Grouping

/// Where a refresh leaves the refreshed owners' eligible occurrences, counted so that the numbers add
/// up: `occurrences == inGroups + pending`; `placed` of the grouped ones were in no group before this
/// run, `seeded` of those in groups it created. Costs the groups a run changed, not the history: the
/// counts over all groups are sums of per-group sizes, and distinct records are kept in a
/// `RecordCoverage` brought up to date from the changed groups.
struct RefreshTally: Sendable {
    /// Eligible occurrences (record permission on, current revision, vector of the current index version).
    var occurrences = 0
    /// Occurrences that are members of a group (active or dormant).
    var inGroups = 0
    /// Occurrences no group holds: not close enough to a group's representative and examples, nor to
    /// occurrences of enough other records to start a group.
    var pending = 0
    /// Occurrences in a group now that were in none before this run.
    var placed = 0
    /// Of `placed`, those in groups this run created.
    var seeded = 0
    /// Distinct records with an occurrence in an active group.
    var recordsGrouped = 0
    /// Groups with at least two records.
    var activeGroups = 0
    /// Themes the run's theme step created, changed (membership, representative or state), and
    /// themes active afterwards (`ThemePersistence.swift`).
    var themesCreated = 0, themesChanged = 0, activeThemes = 0

    init() {}

    /// One owner's run: the groups before it (a snapshot), the state after it, the groups it
    /// changed or created, and the owner's coverage (updated in place).
    init(before: [Int64: Group], after state: PatternState, changed: [Int64], occurrences occ: [Int64: Occurrence],
         coverage: inout RecordCoverage) {
        for g in state.groups.values {
            inGroups += g.members.count
            if g.state == .active { activeGroups += 1 }
        }
        pending = state.pending.count
        occurrences = inGroups + pending
        // An occurrence that was in a group and is in another now left a group the run changed.
        var groupedBefore = Set<Int64>()
        for id in changed { for m in before[id]?.members ?? [] { groupedBefore.insert(m.occurrenceID) } }
        for id in changed {
            guard let g = state.groups[id] else { continue }
            for m in g.members where !groupedBefore.contains(m.occurrenceID) {
                placed += 1
                if before[id] == nil { seeded += 1 }
            }
        }
        coverage.update(before: before, after: state, changed: changed, occurrences: occ)
        recordsGrouped = coverage.distinct
    }

    static func + (a: Self, b: Self) -> Self {
        var t = a
        t.occurrences += b.occurrences; t.inGroups += b.inGroups; t.pending += b.pending
        t.placed += b.placed; t.seeded += b.seeded; t.recordsGrouped += b.recordsGrouped; t.activeGroups += b.activeGroups
        t.themesCreated += b.themesCreated; t.themesChanged += b.themesChanged; t.activeThemes += b.activeThemes
        return t
    }
}

/// For one owner's state at pattern revision `revision`: how many active-group memberships each
/// record has, and how many records have one.
struct RecordCoverage: Sendable {
    var revision: Int64?
    var counts: [String: Int] = [:]
    var distinct: Int { counts.count }

    /// Brings the counts from `before` to `after` through the changed groups, or counts `after` in
    /// full when the counts are not those of `before` (`valid` false) or a member cannot be resolved.
    mutating func update(before: [Int64: Group], after: PatternState, changed: [Int64], occurrences occ: [Int64: Occurrence]) {
        if revision != nil, apply(before: before, after: after, changed: changed, occurrences: occ) { return }
        counts = [:]
        for g in after.groups.values where g.state == .active {
            for m in g.members { if let o = occ[m.occurrenceID] { counts[o.recordID, default: 0] += 1 } }
        }
    }

    private mutating func apply(before: [Int64: Group], after: PatternState, changed: [Int64], occurrences occ: [Int64: Occurrence]) -> Bool {
        var delta: [String: Int] = [:]
        for id in changed {
            if let g = before[id], g.state == .active {
                for m in g.members {
                    guard let o = occ[m.occurrenceID] else { return false }
                    delta[o.recordID, default: 0] -= 1
                }
            }
            if let g = after.groups[id], g.state == .active {
                for m in g.members {
                    guard let o = occ[m.occurrenceID] else { return false }
                    delta[o.recordID, default: 0] += 1
                }
            }
        }
        for (record, d) in delta where d != 0 {
            let n = counts[record, default: 0] + d
            guard n >= 0 else { return false }
            counts[record] = n == 0 ? nil : n
        }
        return true
    }
}
