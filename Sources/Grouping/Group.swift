/// How an occurrence came to be in a group.
public enum MembershipSource: Sendable, Hashable, Codable {
    /// Placed by the engine, with its quantised score.
    case automatic(score: Int)
    /// Pinned by a correction; never evicted automatically.
    case pinned
    /// Moved by a split or merge; never evicted automatically.
    case moved

    /// True for memberships that a user decided (exempt from the stay check).
    public var isUserDecided: Bool {
        if case .automatic = self { return false }
        return true
    }
}

public struct Membership: Sendable, Hashable, Codable {
    public var occurrenceID: Int64
    public var groupID: Int64
    public var source: MembershipSource

    public init(occurrenceID: Int64, groupID: Int64, source: MembershipSource) {
        self.occurrenceID = occurrenceID
        self.groupID = groupID
        self.source = source
    }
}

public enum GroupState: String, Sendable, Hashable, Codable {
    /// At least two distinct records: shown in findings.
    case active
    /// Fewer than two distinct records: hidden, keeps its id, can regain members.
    case dormant
}

/// A persistent pattern: occurrences from distinct records that share a specific situation.
public struct Group: Sendable, Hashable, Codable {
    /// Monotonic, never reused.
    public var id: Int64
    public var owner: String
    public var category: String
    /// Canonical order: ascending occurrence id.
    public var members: [Membership]
    /// The member maximising the summed similarity to all members (ties: lowest id).
    public var medoid: Int64?
    /// Supporting examples: the members most similar to the medoid (distinct records).
    public var exemplars: [Int64]
    public var state: GroupState
    /// Client-written label; cleared whenever any member leaves.
    public var label: String?
    /// The group version the client label was written for.
    public var labelVersion: Int?
    /// Bumped on every membership change.
    public var version: Int
    /// `PatternState.groupsVersion` at the last membership change.
    public var changedAt: Int

    public init(
        id: Int64, owner: String, category: String, members: [Membership] = [], medoid: Int64? = nil,
        exemplars: [Int64] = [], state: GroupState = .dormant, label: String? = nil,
        labelVersion: Int? = nil, version: Int = 0, changedAt: Int = 0
    ) {
        self.id = id
        self.owner = owner
        self.category = category
        self.members = members
        self.medoid = medoid
        self.exemplars = exemplars
        self.state = state
        self.label = label
        self.labelVersion = labelVersion
        self.version = version
        self.changedAt = changedAt
    }

    public var scope: Scope { Scope(owner: owner, category: category) }

    public var memberIDs: [Int64] { members.map(\.occurrenceID) }

    public func membership(of occurrenceID: Int64) -> Membership? {
        members.first { $0.occurrenceID == occurrenceID }
    }
}
