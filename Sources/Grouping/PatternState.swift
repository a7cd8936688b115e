/// Why an unplaced occurrence is waiting, and against which state it was last evaluated.
public struct PendingMark: Sendable, Hashable, Codable {
    /// `nil`: fresh (never evaluated, or just evicted) — it is assigned and used to seed new groups.
    /// Otherwise the `groupsVersion` it was evaluated against; it is re-evaluated only when a group
    /// of its scope changed after that.
    public var evaluatedAt: Int?
    /// What the last evaluation looked at, so that a later change of a group the occurrence did not
    /// look at (and that does not enter its candidates) costs one dot product instead of a full
    /// evaluation. `nil` (older states, fresh occurrences): evaluated in full.
    public var certificate: PendingCertificate?
    /// The occurrence's scope, kept so that finding the pending occurrences of a scope needs no
    /// occurrence look-up; nil in states written before it was kept. A locator, not part of the
    /// decision: equality and hashing ignore it.
    public var scope: Scope?

    public init(evaluatedAt: Int? = nil, certificate: PendingCertificate? = nil, scope: Scope? = nil) {
        self.evaluatedAt = evaluatedAt
        self.certificate = certificate
        self.scope = scope
    }

    public static let fresh = PendingMark(evaluatedAt: nil)

    public static func == (a: PendingMark, b: PendingMark) -> Bool {
        a.evaluatedAt == b.evaluatedAt && a.certificate == b.certificate
    }

    public func hash(into h: inout Hasher) {
        h.combine(evaluatedAt)
        h.combine(certificate)
    }
}

/// The candidate set of a pending occurrence's last evaluation (which left it pending). While no
/// group of `candidates` changed, every changed group scores below the K-th candidate and shares
/// no tag with the occurrence, and `stamp` (thresholds and the occurrence's cannot-links) is the
/// same, evaluating it again would give the same candidates, the same profiles and so the same
/// decision: it is skipped (and the certificate moves forward to the current version).
public struct PendingCertificate: Sendable, Hashable, Codable {
    /// `groupsVersion` at which the candidate set was (last known to be) current.
    public var at: Int
    /// Candidate groups (top-K by centroid ∪ tag-sharing), ascending.
    public var candidates: [Int64]
    /// Quantised centroid score and id of the K-th top-K candidate; nil when fewer than K groups existed.
    public var kthScore: Int?
    public var kthGroup: Int64?
    /// Fingerprint of the decision thresholds and of the records the occurrence's record is cannot-linked to.
    public var stamp: Int

    public init(at: Int, candidates: [Int64], kthScore: Int?, kthGroup: Int64?, stamp: Int) {
        self.at = at
        self.candidates = candidates
        self.kthScore = kthScore
        self.kthGroup = kthGroup
        self.stamp = stamp
    }
}

/// Everything the engine decides for one owner, as plain values to persist.
public struct PatternState: Sendable, Hashable, Codable {
    public var groups: [Int64: Group] { didSet { cacheClaim = 0 } }
    /// Occurrences that belong to no group yet.
    public var pending: [Int64: PendingMark] { didSet { cacheClaim = 0 } }
    /// Next group id to hand out (persisted counter; ids are never reused).
    public var nextGroupID: Int64
    /// Bumped on every membership change of any group.
    public var groupsVersion: Int
    /// `groupsVersion` when a refresh last ran every scope to the end (every pending occurrence
    /// evaluated after the last change of its scope's groups). Only scopes with a group changed
    /// since, or with a new occurrence, can have work. nil: unknown (look at every pending
    /// occurrence); clear it when pending marks are edited outside the engine.
    public var settledAt: Int?
    /// What the refresh that returned this state derived from it, and this state's claim to it
    /// (0: none). Not persisted, not part of the value; editing `groups` or `pending` drops the claim.
    var cache: EngineCache?
    var cacheClaim: UInt64 = 0

    private enum CodingKeys: String, CodingKey { case groups, pending, nextGroupID, groupsVersion, settledAt }

    public static func == (a: Self, b: Self) -> Bool {
        a.groups == b.groups && a.pending == b.pending && a.nextGroupID == b.nextGroupID
            && a.groupsVersion == b.groupsVersion && a.settledAt == b.settledAt
    }

    public func hash(into h: inout Hasher) {
        h.combine(groups)
        h.combine(pending)
        h.combine(nextGroupID)
        h.combine(groupsVersion)
        h.combine(settledAt)
    }

    /// The cache, taken over by a refresh, when this state still holds a claim to it.
    mutating func takeCache() -> EngineCache? {
        guard let c = cache, c.claim(cacheClaim) else { cache = nil; return nil }
        cacheClaim = 0
        return c
    }

    public init(groups: [Int64: Group] = [:], pending: [Int64: PendingMark] = [:], nextGroupID: Int64 = 1, groupsVersion: Int = 0,
                settledAt: Int? = nil) {
        self.groups = groups
        self.pending = pending
        self.nextGroupID = nextGroupID
        self.groupsVersion = groupsVersion
        self.settledAt = settledAt
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
