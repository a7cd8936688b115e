/// An element of a record that may recur. Immutable; a new record revision brings new occurrences.
public struct Occurrence: Sendable, Hashable, Codable {
    /// Stable id assigned by storage.
    public var id: Int64
    public var owner: String
    public var category: String
    /// Normalised description (used for labels).
    public var description: String
    /// Exact excerpt of the record text (shown as evidence).
    public var excerpt: String
    public var recordID: String
    public var recordRevision: Int
    /// ISO-8601 date or timestamp; compared by its first 10 characters.
    public var recordDate: String?
    public var tags: [String]
    /// Unit-length embedding; all occurrences passed to one call share its dimension.
    public var vector: [Float]

    public init(
        id: Int64, owner: String, category: String, description: String, excerpt: String,
        recordID: String, recordRevision: Int, recordDate: String?, tags: [String] = [], vector: [Float]
    ) {
        self.id = id
        self.owner = owner
        self.category = category
        self.description = description
        self.excerpt = excerpt
        self.recordID = recordID
        self.recordRevision = recordRevision
        self.recordDate = recordDate
        self.tags = tags
        self.vector = vector
    }

    /// The comparison scope: grouping only ever compares within one owner and one category.
    public var scope: Scope { Scope(owner: owner, category: category) }
}

/// One owner and one category.
public struct Scope: Sendable, Hashable, Codable, Comparable {
    public var owner: String
    public var category: String

    public init(owner: String, category: String) {
        self.owner = owner
        self.category = category
    }

    public static func < (a: Scope, b: Scope) -> Bool {
        (a.owner, a.category) < (b.owner, b.category)
    }
}
