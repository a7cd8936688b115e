/// An element of a record that may recur. Immutable; a new record revision brings new occurrences.
///
/// A value type whose fields live in one shared, copy-on-write box: the engine reads occurrences out
/// of large dictionaries, and copying one then costs a single reference count instead of one per
/// string and array field.
public struct Occurrence: Sendable, Hashable, Codable {
    private final class Box: @unchecked Sendable {
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

        init(_ id: Int64, _ owner: String, _ category: String, _ description: String, _ excerpt: String, _ recordID: String, _ recordRevision: Int, _ recordDate: String?, _ tags: [String], _ vector: [Float]) {
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

        func copy() -> Box { Box(id, owner, category, description, excerpt, recordID, recordRevision, recordDate, tags, vector) }
    }

    private var box: Box

    /// The box, copied first when shared (copy on write).
    private var unique: Box {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = box.copy() }
            return box
        }
    }

    /// Stable id assigned by storage.
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
    /// Normalised description (used for labels).
    public var description: String {
        get { box.description }
        set { unique.description = newValue }
    }
    /// Exact excerpt of the record text (shown as evidence).
    public var excerpt: String {
        get { box.excerpt }
        set { unique.excerpt = newValue }
    }
    public var recordID: String {
        get { box.recordID }
        set { unique.recordID = newValue }
    }
    public var recordRevision: Int {
        get { box.recordRevision }
        set { unique.recordRevision = newValue }
    }
    /// ISO-8601 date or timestamp; compared by its first 10 characters.
    public var recordDate: String? {
        get { box.recordDate }
        set { unique.recordDate = newValue }
    }
    public var tags: [String] {
        get { box.tags }
        set { unique.tags = newValue }
    }
    /// Unit-length embedding; all occurrences passed to one call share its dimension.
    public var vector: [Float] {
        get { box.vector }
        set { unique.vector = newValue }
    }

    public init(
        id: Int64, owner: String, category: String, description: String, excerpt: String,
        recordID: String, recordRevision: Int, recordDate: String?, tags: [String] = [], vector: [Float]
    ) {
        box = Box(id, owner, category, description, excerpt, recordID, recordRevision, recordDate, tags, vector)
    }

    /// The comparison scope: grouping only ever compares within one owner and one category.
    public var scope: Scope { Scope(owner: owner, category: category) }

    private enum CodingKeys: String, CodingKey {
        case id, owner, category, description, excerpt, recordID, recordRevision, recordDate, tags, vector
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(Int64.self, forKey: .id), owner: try c.decode(String.self, forKey: .owner),
            category: try c.decode(String.self, forKey: .category), description: try c.decode(String.self, forKey: .description),
            excerpt: try c.decode(String.self, forKey: .excerpt), recordID: try c.decode(String.self, forKey: .recordID),
            recordRevision: try c.decode(Int.self, forKey: .recordRevision),
            recordDate: try c.decodeIfPresent(String.self, forKey: .recordDate),
            tags: try c.decode([String].self, forKey: .tags), vector: try c.decode([Float].self, forKey: .vector))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(owner, forKey: .owner)
        try c.encode(category, forKey: .category)
        try c.encode(description, forKey: .description)
        try c.encode(excerpt, forKey: .excerpt)
        try c.encode(recordID, forKey: .recordID)
        try c.encode(recordRevision, forKey: .recordRevision)
        try c.encodeIfPresent(recordDate, forKey: .recordDate)
        try c.encode(tags, forKey: .tags)
        try c.encode(vector, forKey: .vector)
    }

    public static func == (a: Occurrence, b: Occurrence) -> Bool {
        a.box === b.box || (a.id == b.id && a.owner == b.owner && a.category == b.category && a.description == b.description && a.excerpt == b.excerpt && a.recordID == b.recordID && a.recordRevision == b.recordRevision && a.recordDate == b.recordDate && a.tags == b.tags && a.vector == b.vector)
    }

    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(owner)
        h.combine(category)
        h.combine(description)
        h.combine(excerpt)
        h.combine(recordID)
        h.combine(recordRevision)
        h.combine(recordDate)
        h.combine(tags)
        h.combine(vector)
    }
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
