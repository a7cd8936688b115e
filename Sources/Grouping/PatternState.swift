/// Why an unplaced occurrence is waiting, and against which state it was last evaluated.
public struct PendingMark: Sendable, Hashable, Codable {
    /// `nil`: fresh (never evaluated, or just evicted) — it is assigned and used to seed new groups.
    /// Otherwise the `groupsVersion` it was evaluated against; it is re-evaluated only when a group
    /// of its scope changed after that.
    public var evaluatedAt: Int?

    public init(evaluatedAt: Int? = nil) { self.evaluatedAt = evaluatedAt }

    public static let fresh = PendingMark(evaluatedAt: nil)
}

/// Everything the engine decides for one owner, as plain values to persist.
public struct PatternState: Sendable, Hashable, Codable {
    public var groups: [Int64: Group]
    /// Occurrences that belong to no group yet.
    public var pending: [Int64: PendingMark]
    /// Next group id to hand out (persisted counter; ids are never reused).
    public var nextGroupID: Int64
    /// Bumped on every membership change of any group.
    public var groupsVersion: Int

    public init(groups: [Int64: Group] = [:], pending: [Int64: PendingMark] = [:], nextGroupID: Int64 = 1, groupsVersion: Int = 0) {
        self.groups = groups
        self.pending = pending
        self.nextGroupID = nextGroupID
        self.groupsVersion = groupsVersion
    }

    /// All memberships in canonical order (group id, then occurrence id).
    public var memberships: [Membership] {
        groups.keys.sorted().flatMap { groups[$0]!.members }
    }

    /// Groups in ascending id order.
    public var sortedGroups: [Group] { groups.keys.sorted().map { groups[$0]! } }

    /// The group holding `occurrenceID`, if any.
    public func group(of occurrenceID: Int64) -> Group? {
        for id in groups.keys.sorted() where groups[id]!.members.contains(where: { $0.occurrenceID == occurrenceID }) {
            return groups[id]
        }
        return nil
    }
}
