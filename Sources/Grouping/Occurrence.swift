/// An element of a record that may recur. Immutable; a new record revision brings new occurrences.
/// Its fields live in copy-on-write storage shared by its copies (`SharedFields`).
public struct Occurrence: Sendable, Hashable, Codable {
    /// The stored fields (their names are the JSON keys).
    private struct Fields: Hashable, Codable {
        var id: Int64
        var owner: String
        var category: String
        var description: String
        var excerpt: String
        var recordID: String
        var recordRevision: Int
        var recordDate: String?
        var tags: [String]
        var vector: [Float]
    }

    private var box: SharedFields<Fields>

    /// Stable id assigned by storage.
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
    /// Normalised description (used for labels).
    public var description: String {
        get { box.fields.description }
        set { SharedFields.unique(&box).fields.description = newValue }
    }
    /// Exact excerpt of the record text (shown as evidence).
    public var excerpt: String {
        get { box.fields.excerpt }
        set { SharedFields.unique(&box).fields.excerpt = newValue }
    }
    public var recordID: String {
        get { box.fields.recordID }
        set { SharedFields.unique(&box).fields.recordID = newValue }
    }
    public var recordRevision: Int {
        get { box.fields.recordRevision }
        set { SharedFields.unique(&box).fields.recordRevision = newValue }
    }
    /// ISO-8601 date or timestamp; compared by its first 10 characters.
    public var recordDate: String? {
        get { box.fields.recordDate }
        set { SharedFields.unique(&box).fields.recordDate = newValue }
    }
    public var tags: [String] {
        get { box.fields.tags }
        set { SharedFields.unique(&box).fields.tags = newValue }
    }
    /// Unit-length embedding; all occurrences passed to one call share its dimension.
    public var vector: [Float] {
        get { box.fields.vector }
        set { SharedFields.unique(&box).fields.vector = newValue }
    }

    public init(
        id: Int64, owner: String, category: String, description: String, excerpt: String,
        recordID: String, recordRevision: Int, recordDate: String?, tags: [String] = [], vector: [Float]
    ) {
        box = SharedFields(Fields(
            id: id, owner: owner, category: category, description: description, excerpt: excerpt, recordID: recordID,
            recordRevision: recordRevision, recordDate: recordDate, tags: tags, vector: vector))
    }

    public init(from decoder: Decoder) throws { box = SharedFields(try Fields(from: decoder)) }

    public func encode(to encoder: Encoder) throws { try box.fields.encode(to: encoder) }

    public static func == (a: Self, b: Self) -> Bool { a.box === b.box || a.box.fields == b.box.fields }

    public func hash(into h: inout Hasher) { box.fields.hash(into: &h) }

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
