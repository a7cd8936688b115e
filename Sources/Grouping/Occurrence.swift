/// An element of a record that may recur. Immutable: a new record revision brings new occurrences
/// (with new ids). Its fields live in one immutable box shared by its copies, so reading an
/// occurrence out of a large dictionary costs one reference count, and reading a field needs no
/// exclusivity check (the box has only `let` fields).
public struct Occurrence: Sendable, Hashable, Codable {
    /// The stored fields (their names are the JSON keys).
    private final class Fields: Sendable, Hashable, Codable {
        let id: Int64
        let owner: String
        let category: String
        let description: String
        let excerpt: String
        let recordID: String
        let recordRevision: Int
        let recordDate: String?
        let recordKind: String
        let tags: [String]
        let vector: [Float]

        init(id: Int64, owner: String, category: String, description: String, excerpt: String, recordID: String,
             recordRevision: Int, recordDate: String?, recordKind: String, tags: [String], vector: [Float]) {
            self.id = id
            self.owner = owner
            self.category = category
            self.description = description
            self.excerpt = excerpt
            self.recordID = recordID
            self.recordRevision = recordRevision
            self.recordDate = recordDate
            self.recordKind = recordKind
            self.tags = tags
            self.vector = vector
        }

        static func == (a: Fields, b: Fields) -> Bool {
            a === b || (a.id == b.id && a.owner == b.owner && a.category == b.category && a.description == b.description
                && a.excerpt == b.excerpt && a.recordID == b.recordID && a.recordRevision == b.recordRevision
                && a.recordDate == b.recordDate && a.recordKind == b.recordKind && a.tags == b.tags && a.vector == b.vector)
        }

        func hash(into h: inout Hasher) {
            h.combine(id)
            h.combine(owner)
            h.combine(category)
            h.combine(description)
            h.combine(excerpt)
            h.combine(recordID)
            h.combine(recordRevision)
            h.combine(recordDate)
            h.combine(recordKind)
            h.combine(tags)
            h.combine(vector)
        }
    }

    private let box: Fields

    /// Stable id assigned by storage.
    public var id: Int64 { box.id }
    public var owner: String { box.owner }
    public var category: String { box.category }
    /// Normalised description (used for labels).
    public var description: String { box.description }
    /// Exact excerpt of the record text (shown as evidence).
    public var excerpt: String { box.excerpt }
    public var recordID: String { box.recordID }
    public var recordRevision: Int { box.recordRevision }
    /// ISO-8601 date or timestamp; compared by its first 10 characters.
    public var recordDate: String? { box.recordDate }
    /// The kind of its record (dream, note, …; "" when the record has none). Records of two kinds
    /// never share a group made automatically (`KindRule.swift`).
    public var recordKind: String { box.recordKind }
    public var tags: [String] { box.tags }
    /// Unit-length embedding; all occurrences passed to one call share its dimension.
    public var vector: [Float] { box.vector }

    public init(
        id: Int64, owner: String, category: String, description: String, excerpt: String,
        recordID: String, recordRevision: Int, recordDate: String?, recordKind: String = "", tags: [String] = [], vector: [Float]
    ) {
        box = Fields(
            id: id, owner: owner, category: category, description: description, excerpt: excerpt, recordID: recordID,
            recordRevision: recordRevision, recordDate: recordDate, recordKind: recordKind, tags: tags, vector: vector)
    }

    /// The same occurrence of another record (for benchmarks and tests that place a copy elsewhere).
    public func withRecord(_ recordID: String) -> Occurrence {
        Occurrence(id: id, owner: owner, category: category, description: description, excerpt: excerpt, recordID: recordID,
                   recordRevision: recordRevision, recordDate: recordDate, recordKind: recordKind, tags: tags, vector: vector)
    }

    public init(from decoder: Decoder) throws { box = try Fields(from: decoder) }

    public func encode(to encoder: Encoder) throws { try box.encode(to: encoder) }

    public static func == (a: Self, b: Self) -> Bool { a.box == b.box }

    public func hash(into h: inout Hasher) { box.hash(into: &h) }

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
