/// What a refresh derived from the state it returned, for the next refresh of that same state:
/// per scope, the group lists and unit centroids (`ScopeGroups`), the pending marks as columns with
/// their vectors (`PendingIndex`) and the tag groups (`TagIndex`); the occurrence → group index;
/// the groups' profiles; the ids each background level was measured on. Not persisted and no part
/// of `PatternState`: the caller owns it and hands it to `PatternEngine.refresh(…, cache:)` with
/// the state (an empty `EngineCache()` the first time, or whenever nothing is kept).
///
/// Hand it in only with the state the refresh that filled it returned, or with that state as
/// `correct`, `undo`, `removeOccurrences` or `setLabel` left it; after editing the state's groups or
/// pending marks by hand, `reset()` it. As a safety net a refresh keeps the state's counters
/// (`groupsVersion`, `nextGroupID`, `settledAt`, the numbers of groups, pending marks, watermarks
/// and levels) and drops everything when the state handed in differs in one of them: any membership
/// change bumps `groupsVersion`, so an older copy of the state or one a correction changed is
/// caught. Using it never changes a decision (`EngineCacheTests`).
public struct EngineCache {
    /// The derived parts (their snapshots all taken at the start of a call: `at` 0).
    var derived = Derived()
    /// The vector dimension of the occurrences it was derived from.
    var dimension = 0
    /// The counters of the state it was filled for (nil: empty).
    var filledFor: Counters?

    public init() {}

    /// Forgets everything (the next refresh derives it all again).
    public mutating func reset() { self = EngineCache() }

    /// Whether nothing is kept.
    public var isEmpty: Bool { filledFor == nil }

    /// The contents when they were filled for `state` with vectors of `dimension`, leaving this
    /// cache empty either way (the refresh fills it again for the state it returns).
    mutating func take(for state: PatternState, dimension: Int) -> EngineCache? {
        var taken = EngineCache()
        swap(&taken, &self)
        guard taken.filledFor == Counters(state), taken.dimension == dimension else { return nil }
        return taken
    }

    /// What identifies a state among the states the engine returns: any call that changes a
    /// membership bumps `groupsVersion`; one that adds or removes a pending mark, a watermark or a
    /// level changes a count.
    struct Counters: Equatable {
        var groupsVersion: Int
        var nextGroupID: Int64
        var settledAt: Int?
        var groups: Int
        var pending: Int
        var checked: Int
        var levels: Int

        init(_ s: PatternState) {
            groupsVersion = s.groupsVersion
            nextGroupID = s.nextGroupID
            settledAt = s.settledAt
            groups = s.groups.count
            pending = s.pending.count
            checked = s.checked.count
            levels = s.levels.count
        }
    }
}
