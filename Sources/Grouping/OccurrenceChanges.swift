/// What a caller knows about how the occurrences differ from those of the engine call that
/// returned the state it hands over: the ids that may have been added or removed since (any
/// superset will do; an occurrence keeps its id only while its vector, record and category stay
/// the same). The store knows this from its change log, so the engine need not compare every
/// occurrence with the state to find the few that changed.
public struct OccurrenceChanges: Sendable, Hashable {
    public var ids: Set<Int64>

    public init<S: Sequence>(_ ids: S) where S.Element == Int64 { self.ids = Set(ids) }
}

extension Workspace {
    /// Brings the state in line with the current eligible occurrences: members and pending entries
    /// whose occurrence is gone leave; occurrences not known yet become fresh pending. Returns
    /// those, ascending. With `changes`, only the ids it names are looked at; without, every
    /// member, pending mark and occurrence.
    @discardableResult
    mutating func reconcile(changes: OccurrenceChanges? = nil) -> [Int64] {
        var gone = Set<Int64>()
        var fresh: [Int64] = []
        if let changes {
            for id in changes.ids.sorted() {
                let known = state.pending.index(forKey: id) != nil || groupOf[id] != nil
                let present = occurrences.index(forKey: id) != nil
                if known && !present { gone.insert(id) } else if present && !known { fresh.append(id) }
            }
        } else {
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
            let expectedNew = occurrences.count - (known - gone.count)
            if expectedNew != 0 {
                // New occurrences usually carry ids above every known one; otherwise look at all of them.
                for id in occurrences.keys where id > maxKnown { fresh.append(id) }
                if fresh.count != expectedNew {
                    fresh = []
                    for id in occurrences.keys where groupOf[id] == nil && state.pending.index(forKey: id) == nil { fresh.append(id) }
                }
                fresh.sort()
            }
        }
        noneLeft = gone.isEmpty
        if !gone.isEmpty { _ = remove(gone) }
        for id in fresh { makePending(id) }
        return fresh
    }
}
