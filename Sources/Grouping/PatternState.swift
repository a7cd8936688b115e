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

/// Per scope, the last assignment pass that re-checked every evaluated pending occurrence of the
/// scope: each mark evaluated before `below` (the scope's last group change when the pass began)
/// that the pass did not write counts as evaluated at `at` (the version the pass began at), its
/// certificate as current at `at` too. A placement then writes the few marks it changed instead of
/// moving every pending mark of the category forward.
public struct PendingWatermark: Sendable, Hashable, Codable {
    public var below: Int
    public var at: Int

    public init(below: Int, at: Int) {
        self.below = below
        self.at = at
    }
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
    /// `groupsVersion` when a refresh last ran every scope to the end (every pending occurrence
    /// evaluated after the last change of its scope's groups). Only scopes with a group changed
    /// since, or with a new occurrence, can have work. nil: unknown (look at every pending
    /// occurrence); clear it when pending marks are edited outside the engine.
    public var settledAt: Int?
    /// Per scope, the watermark of its pending marks (see `PendingWatermark`; `evaluatedAt(_:)`
    /// gives a mark's version with it applied).
    public var checked: [Scope: PendingWatermark]
    /// Per scope, the background level in force, in hundredths (`Background.swift`): the thresholds
    /// of the scope follow it, and it moves only when a new measure is more than
    /// `backgroundMargin` away. Empty in states written before it was kept.
    public var levels: [Scope: Int] = [:]
    private enum CodingKeys: String, CodingKey { case groups, pending, nextGroupID, groupsVersion, settledAt, checked, levels }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        groups = try c.decode([Int64: Group].self, forKey: .groups)
        pending = try c.decode([Int64: PendingMark].self, forKey: .pending)
        nextGroupID = try c.decode(Int64.self, forKey: .nextGroupID)
        groupsVersion = try c.decode(Int.self, forKey: .groupsVersion)
        settledAt = try c.decodeIfPresent(Int.self, forKey: .settledAt)
        checked = try c.decodeIfPresent([Scope: PendingWatermark].self, forKey: .checked) ?? [:]
        levels = try c.decodeIfPresent([Scope: Int].self, forKey: .levels) ?? [:]
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.groups == b.groups && a.pending == b.pending && a.nextGroupID == b.nextGroupID
            && a.groupsVersion == b.groupsVersion && a.settledAt == b.settledAt && a.checked == b.checked
            && a.levels == b.levels
    }

    public func hash(into h: inout Hasher) {
        h.combine(groups)
        h.combine(pending)
        h.combine(nextGroupID)
        h.combine(groupsVersion)
        h.combine(settledAt)
        h.combine(checked)
        h.combine(levels)
    }

    /// The version pending `id` was last evaluated against, its scope's watermark applied (nil:
    /// fresh or not pending).
    public func evaluatedAt(_ id: Int64) -> Int? {
        guard let m = pending[id] else { return nil }
        return evaluatedAt(m)
    }

    /// `mark.evaluatedAt` with the watermark of its scope applied. (A mark without a scope, from a
    /// state written before marks kept it, is never left to a watermark: it is always written.)
    @inline(__always)
    func evaluatedAt(_ mark: PendingMark) -> Int? {
        guard let at = mark.evaluatedAt, let scope = mark.scope, let w = checked[scope], at < w.below else { return mark.evaluatedAt }
        return w.at
    }

    /// `evaluatedAt(mark)` when `w` is the watermark of the mark's scope (looked up once per scope).
    @inline(__always)
    static func evaluatedAt(_ mark: PendingMark, watermark w: PendingWatermark?) -> Int? {
        guard let at = mark.evaluatedAt, let w, mark.scope != nil, at < w.below else { return mark.evaluatedAt }
        return w.at
    }

    /// The version `mark`'s certificate is current at, `w` (the watermark of its scope) applied.
    static func certificateAt(_ mark: PendingMark, watermark w: PendingWatermark?) -> Int? {
        guard let cert = mark.certificate else { return nil }
        guard let at = mark.evaluatedAt, let w, mark.scope != nil, at < w.below else { return cert.at }
        return max(cert.at, w.at)
    }

    /// The same state with every watermark written into the marks it covers, and none left.
    public var materialized: PatternState {
        guard !checked.isEmpty else { return self }
        var out = self
        for (id, m) in pending {
            guard let scope = m.scope, let w = checked[scope], let at = m.evaluatedAt, at < w.below else { continue }
            out.pending[id]!.evaluatedAt = w.at
            if let c = m.certificate { out.pending[id]!.certificate!.at = max(c.at, w.at) }
        }
        out.checked = [:]
        return out
    }

    public init(groups: [Int64: Group] = [:], pending: [Int64: PendingMark] = [:], nextGroupID: Int64 = 1, groupsVersion: Int = 0,
                settledAt: Int? = nil, checked: [Scope: PendingWatermark] = [:], levels: [Scope: Int] = [:]) {
        self.checked = checked
        self.levels = levels
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
