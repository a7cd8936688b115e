/// What the engine derives from a state to place occurrences quickly, kept as one value: a
/// `Workspace` adopts it whole from the `EngineCache` the previous refresh of that state left, keeps
/// it in line with every change it makes, and hands it back whole (`Workspace.handOver`). Nothing in
/// it decides anything: each part can be derived again from the state (`EngineCacheTests`).
struct Derived {
    /// Per scope, its group lists and unit centroids as of `touchLog` index `at` (see `Workspace.scopeGroups(_:)`).
    var snapshots: [Scope: (at: Int, groups: ScopeGroups)] = [:]
    /// Per scope, its pending marks as columns with their vectors (see `Workspace.takeIndex(_:)`).
    var pendingIndexes: [Scope: PendingIndex] = [:]
    /// Per scope, its tag groups as the last assignment call left them (see `TagIndex`).
    var tagIndexes: [Scope: TagIndex] = [:]
    /// occurrence → group of every member, built on first use (a placement that only touches its
    /// candidate groups never needs it).
    var groupIndex: [Int64: Int64]?
    /// Profiles of groups (representative, examples, records, unit centroid), dropped when their group changes.
    var profiles: [Int64: GroupProfile] = [:]
    /// Per scope, the occurrences its background level was measured on (see `Background.swift`).
    var backgrounds: [Scope: BackgroundBasis] = [:]
}
