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

    /// Stored compactly as `[occurrenceID, groupID, score]` (automatic), `[occurrenceID, groupID, "pinned"]`
    /// or `[occurrenceID, groupID, "moved"]`: a group holds many memberships, and a flat array
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
///
/// A value type whose fields live in one copy-on-write box, so that reading a group out of the
/// state's dictionary costs one reference count, not one per array and string field.
public struct Group: Sendable, Hashable, Codable {
    private final class Box: @unchecked Sendable {
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
        var memberDigest: IDDigest?

        init(_ id: Int64, _ owner: String, _ category: String, _ members: [Membership], _ medoid: Int64?, _ exemplars: [Int64], _ state: GroupState, _ label: String?, _ labelVersion: Int?, _ version: Int, _ changedAt: Int, _ centroid: PackedVector?, _ memberDigest: IDDigest?) {
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
            self.centroid = centroid
            self.memberDigest = memberDigest
        }

        func copy() -> Box { Box(id, owner, category, members, medoid, exemplars, state, label, labelVersion, version, changedAt, centroid, memberDigest) }
    }

    private var box: Box

    /// The box, copied first when shared (copy on write).
    private var unique: Box {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = box.copy() }
            return box
        }
    }

    /// Monotonic, never reused.
    public var id: Int64 {
        get { box.id }
        set { unique.id = newValue }
    }
    public var owner: String {
        get { box.owner }
        set { unique.owner = newValue }
    }
    public var category: String {
        get { box.category }
        set { unique.category = newValue }
    }
    /// Canonical order: ascending occurrence id.
    public var members: [Membership] {
        get { box.members }
        set { unique.members = newValue }
    }
    /// The member maximising the summed similarity to all members (ties: lowest id).
    public var medoid: Int64? {
        get { box.medoid }
        set { unique.medoid = newValue }
    }
    /// Supporting examples: the members most similar to the medoid (distinct records).
    public var exemplars: [Int64] {
        get { box.exemplars }
        set { unique.exemplars = newValue }
    }
    public var state: GroupState {
        get { box.state }
        set { unique.state = newValue }
    }
    /// Client-written label; cleared whenever any member leaves.
    public var label: String? {
        get { box.label }
        set { unique.label = newValue }
    }
    /// The group version the client label was written for.
    public var labelVersion: Int? {
        get { box.labelVersion }
        set { unique.labelVersion = newValue }
    }
    /// Bumped on every membership change.
    public var version: Int {
        get { box.version }
        set { unique.version = newValue }
    }
    /// `PatternState.groupsVersion` at the last membership change.
    public var changedAt: Int {
        get { box.changedAt }
        set { unique.changedAt = newValue }
    }
    /// unit(Σ member vectors, in canonical order), as of the last settle; nil while the members
    /// changed since (or in states written before it was kept). Saves summing every member of every
    /// group when an occurrence is placed. Valid while member vectors stay fixed for their ids.
    public var centroid: PackedVector? {
        get { box.centroid }
        set { unique.centroid = newValue }
    }
    /// Digest of the member ids as of the last settle (nil while the members changed since).
    public var memberDigest: IDDigest? {
        get { box.memberDigest }
        set { unique.memberDigest = newValue }
    }

    public init(
        id: Int64, owner: String, category: String, members: [Membership] = [], medoid: Int64? = nil, exemplars: [Int64] = [], state: GroupState = .dormant, label: String? = nil, labelVersion: Int? = nil, version: Int = 0, changedAt: Int = 0, centroid: PackedVector? = nil, memberDigest: IDDigest? = nil
    ) {
        box = Box(id, owner, category, members, medoid, exemplars, state, label, labelVersion, version, changedAt, centroid, memberDigest)
    }

    private enum CodingKeys: String, CodingKey {
        case id, owner, category, members, medoid, exemplars, state, label, labelVersion, version, changedAt, centroid, memberDigest
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(Int64.self, forKey: .id),
            owner: try c.decode(String.self, forKey: .owner),
            category: try c.decode(String.self, forKey: .category),
            members: try c.decode([Membership].self, forKey: .members),
            medoid: try c.decodeIfPresent(Int64.self, forKey: .medoid),
            exemplars: try c.decode([Int64].self, forKey: .exemplars),
            state: try c.decode(GroupState.self, forKey: .state),
            label: try c.decodeIfPresent(String.self, forKey: .label),
            labelVersion: try c.decodeIfPresent(Int.self, forKey: .labelVersion),
            version: try c.decode(Int.self, forKey: .version),
            changedAt: try c.decode(Int.self, forKey: .changedAt),
            centroid: try c.decodeIfPresent(PackedVector.self, forKey: .centroid),
            memberDigest: try c.decodeIfPresent(IDDigest.self, forKey: .memberDigest))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(owner, forKey: .owner)
        try c.encode(category, forKey: .category)
        try c.encode(members, forKey: .members)
        try c.encodeIfPresent(medoid, forKey: .medoid)
        try c.encode(exemplars, forKey: .exemplars)
        try c.encode(state, forKey: .state)
        try c.encodeIfPresent(label, forKey: .label)
        try c.encodeIfPresent(labelVersion, forKey: .labelVersion)
        try c.encode(version, forKey: .version)
        try c.encode(changedAt, forKey: .changedAt)
        try c.encodeIfPresent(centroid, forKey: .centroid)
        try c.encodeIfPresent(memberDigest, forKey: .memberDigest)
    }

    public static func == (a: Group, b: Group) -> Bool {
        a.box === b.box || (a.id == b.id
            && a.owner == b.owner
            && a.category == b.category
            && a.members == b.members
            && a.medoid == b.medoid
            && a.exemplars == b.exemplars
            && a.state == b.state
            && a.label == b.label
            && a.labelVersion == b.labelVersion
            && a.version == b.version
            && a.changedAt == b.changedAt
            && a.centroid == b.centroid
            && a.memberDigest == b.memberDigest)
    }

    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(owner)
        h.combine(category)
        h.combine(members)
        h.combine(medoid)
        h.combine(exemplars)
        h.combine(state)
        h.combine(label)
        h.combine(labelVersion)
        h.combine(version)
        h.combine(changedAt)
        h.combine(centroid)
        h.combine(memberDigest)
    }

    /// The stored centroid when it has dimension `d`.
    func centroid(dimension d: Int) -> [Float]? {
        guard let c = centroid?.values, c.count == d else { return nil }
        return c
    }

    public var scope: Scope { Scope(owner: owner, category: category) }

    public var memberIDs: [Int64] { members.map(\.occurrenceID) }

    public func membership(of occurrenceID: Int64) -> Membership? {
        members.first { $0.occurrenceID == occurrenceID }
    }
}
