/// The evidence judge's answer to one question, as stored.
public struct StoredVerdict: Sendable, Equatable {
    public var occurrence: Int64
    public var recordRevision: Int
    /// The group asked about and its version; nil for a seed (then `seed` names its representative).
    public var group: (id: Int64, version: Int)?
    public var seed: Int64?
    public var match: Bool
    public var sharedElement: String
    public var difference: String
    public var label: String?
    /// Who answered: `client` or `openai`.
    public var judge: String
    public var decidedAt: String

    public init(occurrence: Int64, recordRevision: Int, group: (id: Int64, version: Int)?, seed: Int64?, match: Bool,
                sharedElement: String, difference: String, label: String?, judge: String, decidedAt: String) {
        self.occurrence = occurrence
        self.recordRevision = recordRevision
        self.group = group
        self.seed = seed
        self.match = match
        self.sharedElement = sharedElement
        self.difference = difference
        self.label = label
        self.judge = judge
        self.decidedAt = decidedAt
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.occurrence == b.occurrence && a.recordRevision == b.recordRevision && a.group?.id == b.group?.id
            && a.group?.version == b.group?.version && a.seed == b.seed && a.match == b.match
            && a.sharedElement == b.sharedElement && a.difference == b.difference && a.label == b.label
            && a.judge == b.judge && a.decidedAt == b.decidedAt
    }
}

/// Verdicts of the evidence judge (`pattern_verdicts`): one per (occurrence at its record revision,
/// group at its version) or (occurrence, seed representative). A verdict goes with its occurrence
/// (and with the seed's representative) when that is deleted.
extension RecordStore {
    /// The stored verdict on one question, if any.
    public func verdict(owner: String, occurrence: Int64, recordRevision: Int, group: (id: Int64, version: Int)?, seed: Int64?) throws -> StoredVerdict? {
        try database.query("""
            SELECT match, shared_element, difference, label, judge, decided_at FROM pattern_verdicts
            WHERE owner = ?1 AND occurrence = ?2 AND record_revision = ?3 AND group_id = ?4 AND group_version = ?5 AND coalesce(seed, 0) = ?6
            """, [.text(owner), .int(occurrence), .from(recordRevision), .int(group?.id ?? 0), .from(group?.version ?? 0), .int(seed ?? 0)]) {
            StoredVerdict(occurrence: occurrence, recordRevision: recordRevision, group: group, seed: seed, match: $0.int(0) == 1,
                          sharedElement: $0.text(1) ?? "", difference: $0.text(2) ?? "", label: $0.isNull(3) ? nil : $0.text(3),
                          judge: $0.text(4) ?? "", decidedAt: $0.text(5) ?? "")
        }.first
    }

    /// Stores (or replaces) a verdict.
    public func storeVerdict(owner: String, _ v: StoredVerdict) throws {
        precondition((v.group == nil) != (v.seed == nil), "a verdict is about a group or a seed")
        try database.run("""
            INSERT INTO pattern_verdicts(owner, occurrence, record_revision, group_id, group_version, seed, match,
                                         shared_element, difference, label, judge, decided_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
            ON CONFLICT(occurrence, record_revision, group_id, group_version, coalesce(seed, 0)) DO UPDATE SET
                match = excluded.match, shared_element = excluded.shared_element, difference = excluded.difference,
                label = excluded.label, judge = excluded.judge, decided_at = excluded.decided_at
            """, [.text(owner), .int(v.occurrence), .from(v.recordRevision), .int(v.group?.id ?? 0), .from(v.group?.version ?? 0),
                  v.seed.map { .int($0) } ?? .null, .from(v.match), .text(v.sharedElement), .text(v.difference), .from(v.label),
                  .text(v.judge), .text(v.decidedAt)])
    }

    /// Stores a verdict unless its occurrence or the seed's representative was deleted meanwhile
    /// (the question was asked outside the writer): false then, and nothing is stored.
    @discardableResult
    public func storeVerdictIfItsSidesRemain(owner: String, _ v: StoredVerdict) throws -> Bool {
        do {
            try storeVerdict(owner: owner, v)
            return true
        } catch let e as SQLiteError where e.code == 787 {  // SQLITE_CONSTRAINT_FOREIGNKEY
            return false
        }
    }

    /// How many verdicts `owner` has stored, and how many of them are a yes.
    public func verdictCounts(owner: String) throws -> (all: Int, yes: Int) {
        try database.query("SELECT count(*), coalesce(sum(match), 0) FROM pattern_verdicts WHERE owner = ?", [.text(owner)]) {
            (Int($0.int(0)), Int($0.int(1)))
        }.first ?? (0, 0)
    }
}
