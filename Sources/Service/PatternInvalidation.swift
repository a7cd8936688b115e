import Grouping
import KindredCore
import Storage

/// Record writes take effect on patterns at once, in the same transaction: a deleted record, a
/// record whose `patterns` permission is off, or a new revision with changed text takes its
/// occurrences out of their groups (labels cleared, versions bumped, groups below two records go
/// dormant). A new revision with the same text keeps its occurrences, moved to that revision.
extension KindredService {
    /// Runs the record write `body` and the pattern follow-up in one transaction (the caller's, when
    /// it has one: an error fails it whole).
    func withPatternInvalidation<T>(_ store: RecordStore, owner: String, recordIDs: [String], _ body: () throws -> T) throws -> T {
        try store.database.joiningTransaction {
            let before = try store.patternSnapshots(owner: owner, recordIDs: recordIDs)
            let result = try body()
            guard !before.isEmpty else { return result }
            let after = try store.patternRecordStates(owner: owner, recordIDs: before.map(\.id))
            var leaving = Set<Int64>()
            var dropped: [Int64] = []
            for b in before {
                guard let now = after[b.id], now.rowid == b.rowid else {
                    leaving.formUnion(b.occurrences.map(\.id))  // deleted; the rows went with the record
                    continue
                }
                // Byte equality: canonically equivalent but different texts are different texts.
                let sameText = now.text.utf8.elementsEqual(b.text.utf8)
                if now.revision != b.revision, sameText {
                    try store.moveOccurrences(record: b.rowid, from: b.revision, to: now.revision)
                }
                for o in b.occurrences {
                    let current = o.revision == now.revision || (o.revision == b.revision && sameText)
                    if !current {
                        leaving.insert(o.id)
                        dropped.append(o.id)
                    } else if !now.patterns {
                        leaving.insert(o.id)  // kept, but out of every group until the permission is back
                    }
                }
            }
            try store.deleteOccurrences(dropped)
            try removeFromPatterns(store, owner: owner, leaving)
            return result
        }
    }

    /// Takes occurrences out of their groups and out of pending, and saves what changed.
    func removeFromPatterns(_ store: RecordStore, owner: String, _ ids: Set<Int64>) throws {
        guard !ids.isEmpty, try store.patternStateRow(owner: owner) != nil else { return }
        let (state, _, _) = try loadPatternState(store, owner: owner)
        let affected = state.groups.values.filter { g in g.members.contains { ids.contains($0.occurrenceID) } }
        let inPending = ids.contains { state.pending[$0] != nil }
        guard !affected.isEmpty || inPending else { return }
        // Settling an affected group needs the vectors of its remaining (eligible) members only.
        let remaining = affected.flatMap(\.memberIDs).filter { !ids.contains($0) }
        let rows = try store.eligibleOccurrences(owner: owner, indexVersion: indexVersion,
                                                 includePassages: patternConfig.passageOccurrences, withVectors: true, ids: remaining)
        var occurrences: [Int64: Occurrence] = [:]
        for r in rows { occurrences[r.id] = PatternCodec.occurrence(r) }
        let outcome = PatternEngine.removeOccurrences(ids, from: state, occurrences: occurrences, config: patternConfig.grouping)
        try savePatternOutcome(store, owner: owner, outcome)
    }
}
