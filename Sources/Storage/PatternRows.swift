/// An occurrence row. Offsets count Unicode scalars of the record text, like passages.
public struct StoredOccurrence: Sendable, Equatable {
    public var id: Int64
    public var owner: String
    public var recordRowid: Int64
    public var recordID: String
    public var recordRevision: Int64
    public var recordDate: String?
    /// The record's kind ("" when it has none).
    public var recordKind: String = ""
    /// `client` (sent with `occurrences/put`) or `passage` (made from the record's passages).
    public var source: String
    public var category: String
    public var description: String
    public var excerpt: String
    public var start: Int
    public var end: Int
    public var tags: [String]
    /// Nil when not loaded, or while it waits for the embedder.
    public var vector: [Float]?
}

/// An occurrence to insert.
public struct NewOccurrence: Sendable, Equatable {
    public var source: String
    public var category: String
    public var description: String
    public var excerpt: String
    public var start: Int
    public var end: Int
    public var tags: [String]
    public var vector: [Float]?

    public init(source: String, category: String, description: String, excerpt: String, start: Int, end: Int,
                tags: [String], vector: [Float]?) {
        self.source = source
        self.category = category
        self.description = description
        self.excerpt = excerpt
        self.start = start
        self.end = end
        self.tags = tags
        self.vector = vector
    }
}

/// One record as pattern invalidation sees it: its current state and its occurrences.
public struct RecordPatternSnapshot: Sendable, Equatable {
    public var rowid: Int64
    public var id: String
    public var revision: Int64
    public var text: String
    public var patterns: Bool
    /// (occurrence id, the record revision it was made for)
    public var occurrences: [(id: Int64, revision: Int64)]

    public static func == (a: Self, b: Self) -> Bool {
        a.rowid == b.rowid && a.id == b.id && a.revision == b.revision && a.text == b.text && a.patterns == b.patterns
            && a.occurrences.map(\.id) == b.occurrences.map(\.id) && a.occurrences.map(\.revision) == b.occurrences.map(\.revision)
    }
}

/// A group as stored: the engine's JSON plus columns for querying.
public struct GroupRow: Sendable, Equatable {
    public var owner: String
    public var id: Int64
    public var category: String
    public var state: String
    public var version: Int64
    public var label: String?
    public var labelDescription: String?
    public var body: String
    /// The group's unit centroid, little-endian float32 (kept out of the JSON body: it is the
    /// bulk of a group and a BLOB reads without parsing).
    public var centroid: [Float]?

    public init(owner: String, id: Int64, category: String, state: String, version: Int64, label: String?,
                labelDescription: String?, body: String, centroid: [Float]? = nil) {
        self.owner = owner
        self.id = id
        self.category = category
        self.state = state
        self.version = version
        self.label = label
        self.labelDescription = labelDescription
        self.body = body
        self.centroid = centroid
    }
}

/// Per-owner engine counters and pending watermarks (the pending marks are rows of their own,
/// `RecordStore.pendingMarkRows`).
public struct PatternStateRow: Sendable, Equatable {
    public var owner: String
    public var nextGroupID: Int64
    public var groupsVersion: Int64
    /// The engine's pending watermarks (JSON); nil: none.
    public var pendingChecked: String?
    /// The engine's `settledAt` (nil: unknown).
    public var settledAt: Int64?
    /// The index version (model and dimension) whose vectors the groups were last refreshed with;
    /// nil: not known. Saving nil keeps the stored value.
    public var indexVersion: String?
    /// The engine's background levels in force per category (JSON); nil: none.
    public var backgroundLevels: String?

    public init(owner: String, nextGroupID: Int64, groupsVersion: Int64, pendingChecked: String? = nil, settledAt: Int64? = nil,
                indexVersion: String? = nil, backgroundLevels: String? = nil) {
        self.owner = owner
        self.nextGroupID = nextGroupID
        self.groupsVersion = groupsVersion
        self.pendingChecked = pendingChecked
        self.settledAt = settledAt
        self.indexVersion = indexVersion
        self.backgroundLevels = backgroundLevels
    }
}

public struct CorrectionRow: Sendable, Equatable {
    public var id: Int64
    public var owner: String
    public var body: String
    public var createdAt: String
    public var undone: Bool
}

/// Pattern counts for `index/status`.
public struct PatternCounts: Sendable, Equatable {
    public var occurrences = 0
    public var occurrencesWaiting = 0
    public var groups = 0
    public var activeGroups = 0
}
