import Grouping
import KindredCore

/// A few owners' values, least recently used leave first. Thread-safe; callers decide whether an
/// entry is still current (see `PatternStateEntry` and `OccurrencesEntry`).
final class OwnerCache<Entry>: Sendable {
    private struct Entries {
        var byOwner: [String: (entry: Entry, used: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    /// `Guarded`, not `Mutex`: the entries (pattern states) are not Sendable.
    private let entries = Guarded(Entries())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func entry(_ owner: String) -> Entry? {
        entries.with { e -> Entry? in
            guard let found = e.byOwner[owner] else { return nil }
            e.clock += 1
            e.byOwner[owner]!.used = e.clock
            return found.entry
        }
    }

    /// Removes and returns the owner's entry (so that the caller's copy is the only one and can be
    /// updated in place).
    func take(_ owner: String) -> Entry? {
        entries.with { $0.byOwner.removeValue(forKey: owner)?.entry }
    }

    func store(_ owner: String, _ entry: Entry) {
        entries.with { e in
            e.clock += 1
            e.byOwner[owner] = (entry, e.clock)
            while e.byOwner.count > capacity, let oldest = e.byOwner.min(by: { $0.value.used < $1.value.used })?.key {
                e.byOwner[oldest] = nil
            }
        }
    }
}

/// An owner's pattern state as read or saved at the store's pattern revision `revision`
/// (`RecordStore.patternRevision`, bumped by triggers on any write to the owner's groups, state or
/// corrections, by this process or another): current while the revision is unchanged. The state a
/// refresh saved keeps what the engine derived for the next refresh (`engineCache`).
struct PatternStateEntry {
    var revision: Int64
    var state: PatternState
    /// What the refresh that returned `state` derived from it (empty for a state read from the store).
    var engineCache = EngineCache()
    var labelDescriptions: [Int64: String]
    var indexVersion: String?
    /// The input log position of the occurrences the engine call that returned `state` was given
    /// (set by `patterns/refresh`): the occurrences logged since are all that can differ.
    var occurrencesAt: Int64? = nil
}

/// An owner's eligible occurrences (with vectors) as of input log position `position`
/// (`RecordStore.inputLogPosition`): brought up to date by re-reading the occurrences logged since.
struct OccurrencesEntry {
    var position: Int64
    var indexVersion: String
    var includePassages: Bool
    var occurrences: [Int64: Occurrence]
}
