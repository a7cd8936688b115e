/// What the user asked for.
public enum CorrectionKind: Sendable, Hashable, Codable {
    /// This occurrence does not belong to that group.
    case dismiss(occurrence: Int64, group: Int64)
    /// These members apart from the rest of the group.
    case split(group: Int64, moveOut: [Int64])
    /// Move every member of `from` into `into`.
    case merge(into: Int64, from: Int64)
    /// This membership stays.
    case pin(occurrence: Int64, group: Int64)
    /// This occurrence's record belongs to no pattern: it leaves `group` and joins no group (nor
    /// founds one) until the correction is undone.
    case exclude(occurrence: Int64, group: Int64)
}

/// A correction as submitted, before the engine resolved which records it involves.
public struct CorrectionRequest: Sendable, Hashable, Codable {
    public var kind: CorrectionKind
    public var note: String?
    public var createdAt: String

    public init(kind: CorrectionKind, note: String? = nil, createdAt: String) {
        self.kind = kind
        self.note = note
        self.createdAt = createdAt
    }
}

/// An unordered pair of distinct record ids (`a < b`).
public struct RecordPair: Sendable, Hashable, Codable, Comparable {
    public let a: String
    public let b: String

    public init(_ x: String, _ y: String) {
        precondition(x != y, "a record pair needs two records")
        if x < y { a = x; b = y } else { a = y; b = x }
    }

    public static func < (l: RecordPair, r: RecordPair) -> Bool { (l.a, l.b) < (r.a, r.b) }
}

/// A stored correction. The records it keeps apart or together are resolved when it is made and
/// stored with it, so it survives edits, deletions of occurrences and rebuilds.
public struct Correction: Sendable, Hashable, Codable {
    public var id: Int64
    public var kind: CorrectionKind
    public var note: String?
    public var createdAt: String
    /// Cannot-link pairs this correction creates (dismiss, split).
    public var separated: [RecordPair]
    /// Records this correction says belong together (merge, pin): one must-link set.
    public var joined: [String]
    /// Occurrences named or moved by the correction (for messages).
    public var occurrences: [Int64]
    /// The record a dismissal took out of its group or an exclusion keeps out of every group
    /// (resolved when made; absent from corrections stored before it existed).
    public var records: [String]

    public init(
        id: Int64, kind: CorrectionKind, note: String? = nil, createdAt: String,
        separated: [RecordPair] = [], joined: [String] = [], occurrences: [Int64] = [], records: [String] = []
    ) {
        self.records = records
        self.id = id
        self.kind = kind
        self.note = note
        self.createdAt = createdAt
        self.separated = separated
        self.joined = joined
        self.occurrences = occurrences
    }

    private enum Keys: String, CodingKey { case id, kind, note, createdAt, separated, joined, occurrences, records }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(id: try c.decode(Int64.self, forKey: .id), kind: try c.decode(CorrectionKind.self, forKey: .kind),
                  note: try c.decodeIfPresent(String.self, forKey: .note), createdAt: try c.decode(String.self, forKey: .createdAt),
                  separated: try c.decode([RecordPair].self, forKey: .separated), joined: try c.decode([String].self, forKey: .joined),
                  occurrences: try c.decode([Int64].self, forKey: .occurrences),
                  records: try c.decodeIfPresent([String].self, forKey: .records) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(note, forKey: .note)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(separated, forKey: .separated)
        try c.encode(joined, forKey: .joined)
        try c.encode(occurrences, forKey: .occurrences)
        if !records.isEmpty { try c.encode(records, forKey: .records) }
    }
}
