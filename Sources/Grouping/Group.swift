/// How an occurrence came to be in a group.
public enum MembershipSource: Sendable, Hashable, Codable {
    /// Placed by the engine, with its quantised score.
    case automatic(score: Int)
    /// Pinned by a correction; never evicted automatically.
    case pinned
    /// Moved by a split or merge; never evicted automatically.
    case moved
    /// In a group that the engine combined with another (`Combination.swift`): decided for the
    /// whole group by how its members neighbour each other, not against the combined medoid, so
    /// never evicted by the stay check; not decided by a user (a rebuild regroups it).
    case combined
    /// Confirmed by an outside judge (`JudgedPlacement.swift`), proposed at this quantised
    /// similarity; never evicted by the stay check, not decided by a user.
    case judged(score: Int)

    /// True for memberships that a user decided (pinned, moved).
    public var isUserDecided: Bool {
        switch self {
        case .pinned, .moved: return true
        case .automatic, .combined, .judged: return false
        }
    }

    /// True for memberships the stay check applies to (automatic ones): the others never leave
    /// because the medoid moved.
    public var staysChecked: Bool {
        if case .automatic = self { return true }
        return false
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

    /// Stored compactly as `[occurrenceID, groupID, score]` (automatic), `[occurrenceID, groupID, "pinned"]`,
    /// `[occurrenceID, groupID, "moved"]`, `[occurrenceID, groupID, "combined"]` or `[occurrenceID, groupID, "judged", score]`: a group holds many memberships, and a flat array
    /// decodes several times faster than nested objects. The keyed form of older states still reads.
    public init(from decoder: Decoder) throws {
        guard var c = try? decoder.unkeyedContainer() else {
            let k = try decoder.container(keyedBy: Keys.self)
            self.init(occurrenceID: try k.decode(Int64.self, forKey: .occurrenceID), groupID: try k.decode(Int64.self, forKey: .groupID),
                      source: try k.decode(MembershipSource.self, forKey: .source))
            return
        }
        let occurrence = try c.decode(Int64.self), group = try c.decode(Int64.self)
        let source: MembershipSource
        if let score = try? c.decode(Int.self) {
            source = .automatic(score: score)
        } else {
            switch try c.decode(String.self) {
            case "pinned": source = .pinned
            case "moved": source = .moved
            case "combined": source = .combined
            case "judged": source = .judged(score: try c.decode(Int.self))
            case let other:
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown membership source \(other)")
            }
        }
        self.init(occurrenceID: occurrence, groupID: group, source: source)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(occurrenceID)
        try c.encode(groupID)
        switch source {
        case let .automatic(score): try c.encode(score)
        case .pinned: try c.encode("pinned")
        case .moved: try c.encode("moved")
        case .combined: try c.encode("combined")
        case let .judged(score):
            try c.encode("judged")
            try c.encode(score)
        }
    }

    private enum Keys: String, CodingKey { case occurrenceID, groupID, source }
}

public enum GroupState: String, Sendable, Hashable, Codable {
    /// At least two distinct records: shown in findings.
    case active
    /// Fewer than two distinct records: hidden, keeps its id, can regain members.
    case dormant
}

/// A persistent pattern: occurrences from distinct records that share a specific situation.
/// Its fields live in copy-on-write storage shared by its copies (`SharedFields`).
public struct Group: Sendable, Hashable, Codable {
    /// The stored fields (their names are the JSON keys).
    private struct Fields: Hashable, Codable {
        var id: Int64
        var owner: String
        var category: String
        var members: [Membership]
        var medoid: Int64?
        var exemplars: [Int64]
        var state: GroupState
        var label: String?
        var labelVersion: Int?
        var version: Int
        var changedAt: Int
        var centroid: PackedVector?
        var mergedInto: Int64?
        var sweptMembers: Int?
    }

    private var box: SharedFields<Fields>

    /// Monotonic, never reused.
    public var id: Int64 {
        get { box.fields.id }
        set { SharedFields.unique(&box).fields.id = newValue }
    }
    public var owner: String {
        get { box.fields.owner }
        set { SharedFields.unique(&box).fields.owner = newValue }
    }
    public var category: String {
        get { box.fields.category }
        set { SharedFields.unique(&box).fields.category = newValue }
    }
    /// Canonical order: ascending occurrence id.
    public var members: [Membership] {
        get { box.fields.members }
        set { SharedFields.unique(&box).fields.members = newValue }
    }
    /// The member maximising the summed similarity to all members (ties: lowest id).
    public var medoid: Int64? {
        get { box.fields.medoid }
        set { SharedFields.unique(&box).fields.medoid = newValue }
    }
    /// Supporting examples: the members most similar to the medoid (distinct records).
    public var exemplars: [Int64] {
        get { box.fields.exemplars }
        set { SharedFields.unique(&box).fields.exemplars = newValue }
    }
    public var state: GroupState {
        get { box.fields.state }
        set { SharedFields.unique(&box).fields.state = newValue }
    }
    /// Client-written label; cleared whenever any member leaves.
    public var label: String? {
        get { box.fields.label }
        set { SharedFields.unique(&box).fields.label = newValue }
    }
    /// The group version the client label was written for.
    public var labelVersion: Int? {
        get { box.fields.labelVersion }
        set { SharedFields.unique(&box).fields.labelVersion = newValue }
    }
    /// Bumped on every membership change.
    public var version: Int {
        get { box.fields.version }
        set { SharedFields.unique(&box).fields.version = newValue }
    }
    /// `PatternState.groupsVersion` at the last membership change.
    public var changedAt: Int {
        get { box.fields.changedAt }
        set { SharedFields.unique(&box).fields.changedAt = newValue }
    }
    /// unit(Σ member vectors, in canonical order), as of the last settle; nil while the members
    /// changed since (or in states written before it was kept). Saves summing every member of every
    /// group when an occurrence is placed. Valid while member vectors stay fixed for their ids.
    public var centroid: PackedVector? {
        get { box.fields.centroid }
        set { SharedFields.unique(&box).fields.centroid = newValue }
    }
    /// The group this one was combined into (the older one, which kept its members), if any: a
    /// client holding this id follows it (perhaps over several steps). Such a group stays empty.
    public var mergedInto: Int64? {
        get { box.fields.mergedInto }
        set { SharedFields.unique(&box).fields.mergedInto = newValue }
    }

    /// The number of members the group had when a combination sweep last looked at it (nil: never):
    /// it is looked at again once that number has changed by a quarter (`Combination.swift`).
    public var sweptMembers: Int? {
        get { box.fields.sweptMembers }
        set { SharedFields.unique(&box).fields.sweptMembers = newValue }
    }

    public init(
        id: Int64, owner: String, category: String, members: [Membership] = [], medoid: Int64? = nil,
        exemplars: [Int64] = [], state: GroupState = .dormant, label: String? = nil, labelVersion: Int? = nil,
        version: Int = 0, changedAt: Int = 0, centroid: PackedVector? = nil
    ) {
        box = SharedFields(Fields(
            id: id, owner: owner, category: category, members: members, medoid: medoid, exemplars: exemplars, state: state,
            label: label, labelVersion: labelVersion, version: version, changedAt: changedAt, centroid: centroid,
            mergedInto: nil, sweptMembers: nil))
    }

    public init(from decoder: Decoder) throws { box = SharedFields(try Fields(from: decoder)) }

    public func encode(to encoder: Encoder) throws { try box.fields.encode(to: encoder) }

    public static func == (a: Self, b: Self) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

    public func hash(into h: inout Hasher) { box.fields.hash(into: &h) }

    /// The stored centroid when it has dimension `d`.
    func centroid(dimension d: Int) -> [Float]? {
        guard let c = centroid?.values, c.count == d else { return nil }
        return c
    }

    public var scope: Scope { Scope(owner: owner, category: category) }

    public var memberIDs: [Int64] { members.map(\.occurrenceID) }

    /// Every member is one of the supporting examples (a group of at most `exemplars` records, one
    /// occurrence each).
    var allExamples: Bool { !members.isEmpty && exemplars.count == members.count }

    public func membership(of occurrenceID: Int64) -> Membership? {
        members.first { $0.occurrenceID == occurrenceID }
    }
}
