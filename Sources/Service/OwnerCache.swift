import Foundation
import Grouping

/// A few owners' values, least recently used leave first. Thread-safe; callers decide whether an
/// entry is still current (see `PatternStateEntry` and `OccurrencesEntry`).
final class OwnerCache<Entry>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (entry: Entry, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func entry(_ owner: String) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        guard let e = entries[owner] else { return nil }
        clock += 1
        entries[owner]!.used = clock
        return e.entry
    }

    /// Removes and returns the owner's entry (so that the caller's copy is the only one and can be
    /// updated in place).
    func take(_ owner: String) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        return entries.removeValue(forKey: owner)?.entry
    }

    func store(_ owner: String, _ entry: Entry) {
        lock.lock()
        defer { lock.unlock() }
        clock += 1
        entries[owner] = (entry, clock)
        while entries.count > capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            entries[oldest] = nil
        }
    }
}

/// An owner's pattern state as read or saved at the store's pattern revision `revision`
/// (`RecordStore.patternRevision`, bumped by triggers on any write to the owner's groups, state or
/// corrections, by this process or another): current while the revision is unchanged. The state a
/// refresh saved keeps what the engine derived for the next refresh.
struct PatternStateEntry {
    var revision: Int64
    var state: PatternState
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
