import Foundation

/// What a refresh derived from the groups of the state it returned, kept for the next refresh of
/// that same state: per scope, the group lists and unit centroids (`ScopeGroups`), the pending
/// marks as columns with their vectors (`PendingIndex`) and the tag groups (`TagIndex`). Not persisted
/// and not part of the state's value. It is valid only while the state is exactly as the refresh
/// returned it: any edit of the state's groups or pending marks (by anyone) drops the state's
/// claim to it, and a refresh that takes it over makes every other copy's claim void.
public final class EngineCache: @unchecked Sendable {
    private let lock = NSLock()
    private var token: UInt64 = 0
    var scopes: [Scope: ScopeGroups] = [:]
    var pendingIndexes: [Scope: PendingIndex] = [:]
    var tagIndexes: [Scope: TagIndex] = [:]
    /// occurrence → group of every member of the state, when the refresh had built it.
    var groupIndex: [Int64: Int64]?
    /// The profiles of groups as the state holds them (representative, examples, records, unit
    /// centroid), so that a placement does not rebuild the profile of every candidate it looks at.
    var profiles: [Int64: GroupProfile] = [:]
    /// Per scope, the occurrences its background level was measured on (see `Background.swift`).
    var backgrounds: [Scope: BackgroundBasis] = [:]
    var dimension = 0

    nonisolated(unsafe) private static var counter: UInt64 = 0
    private static let counterLock = NSLock()

    init() {}

    /// Takes the cache over for one refresh when `token` is its current one (the caller's state is
    /// the one it was made for); afterwards no state holds a valid claim until `issue`.
    func claim(_ token: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard token != 0, token == self.token else { return false }
        self.token = 0
        return true
    }

    /// A new claim for the state a refresh is about to return.
    func issue() -> UInt64 {
        Self.counterLock.lock()
        Self.counter += 1
        let t = Self.counter
        Self.counterLock.unlock()
        lock.lock()
        token = t
        lock.unlock()
        return t
    }
}
