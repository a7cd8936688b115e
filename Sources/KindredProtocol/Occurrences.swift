/// An occurrence as a client's extractor finds it (`occurrences/put`).
public struct OccurrenceInput: Codable, Sendable, Hashable {
    /// The keys an occurrence object may hold.
    public static let fields = Shape.fieldNames(of: Self.self)

    public var category: String
    public var description: String
    /// Must occur in the record's text (after folding whitespace, curly quotes and case).
    public var excerpt: String
    public var tags: [String]?
    public init(category: String, description: String, excerpt: String, tags: [String]? = nil) {
        self.category = category; self.description = description; self.excerpt = excerpt; self.tags = tags
    }
}

/// `occurrences/put`, in one of two forms: one record revision's occurrences (`recordId`,
/// `revision`, `occurrences`), replacing what it had; or `items`, many records' occurrences in one
/// call (one embedder batch, one transaction), where a record that is missing or not at the given
/// revision gets an `error` in its own result and the others are written.
public struct OccurrencesPut: KindredRequest {

    /// One record's occurrences in the `items` form.
    public struct Item: Codable, Sendable, Hashable {
        public var recordId: String
        public var revision: Int
        public var occurrences: [OccurrenceInput]
        public init(recordId: String, revision: Int, occurrences: [OccurrenceInput]) {
            self.recordId = recordId; self.revision = revision; self.occurrences = occurrences
        }
    }

    /// The answer: one record's fields in the single form; `items` (one result per item, in order),
    /// `written` and `failed` in the `items` form. `accepted` and `vectors` are in both, and `waiting`
    /// (why no vectors were stored) when vectors wait.
    public struct Result: Codable, Sendable, Hashable {
        public struct Accepted: Codable, Sendable, Hashable {
            public var index: Int
            public var occurrenceId: Int
            public var excerpt: String
            public var start: Int
            public var end: Int
            public init(index: Int, occurrenceId: Int, excerpt: String, start: Int, end: Int) {
                self.index = index; self.occurrenceId = occurrenceId; self.excerpt = excerpt; self.start = start; self.end = end
            }
        }
        public struct Rejected: Codable, Sendable, Hashable {
            public var index: Int, field: String, reason: String
            public init(index: Int, field: String, reason: String) { self.index = index; self.field = field; self.reason = reason }
        }
        public struct ItemError: Codable, Sendable, Hashable {
            public var code: Int, message: String, data: KindredJSON?
            public init(code: Int, message: String, data: KindredJSON? = nil) { self.code = code; self.message = message; self.data = data }
        }
        public struct Waiting: Codable, Sendable, Hashable {
            public var reason: String
            public init(reason: String) { self.reason = reason }
        }
        public struct ItemResult: Codable, Sendable, Hashable {
            public var recordId: String
            public var revision: Int?
            public var accepted: Int?
            public var occurrences: [Accepted]?
            public var rejected: [Rejected]?
            public var vectors: String?
            public var waiting: Waiting?
            /// Set when this item was not written.
            public var error: ItemError?
            public init(recordId: String, revision: Int? = nil, accepted: Int? = nil, occurrences: [Accepted]? = nil, rejected: [Rejected]? = nil,
                        vectors: String? = nil, waiting: Waiting? = nil, error: ItemError? = nil) {
                self.recordId = recordId; self.revision = revision; self.accepted = accepted; self.occurrences = occurrences
                self.rejected = rejected; self.vectors = vectors; self.waiting = waiting; self.error = error
            }
        }
        public var items: [ItemResult]?
        public var written: Int?
        public var failed: Int?
        public var recordId: String?
        public var revision: Int?
        public var accepted: Int
        public var occurrences: [Accepted]?
        public var rejected: [Rejected]?
        /// `stored`, or `waiting` (no embedder yet).
        public var vectors: String
        public var waiting: Waiting?
        public init(items: [ItemResult]? = nil, written: Int? = nil, failed: Int? = nil, recordId: String? = nil, revision: Int? = nil,
                    accepted: Int, occurrences: [Accepted]? = nil, rejected: [Rejected]? = nil, vectors: String, waiting: Waiting? = nil) {
            self.items = items; self.written = written; self.failed = failed; self.recordId = recordId; self.revision = revision
            self.accepted = accepted; self.occurrences = occurrences; self.rejected = rejected; self.vectors = vectors; self.waiting = waiting
        }
    }

    public var owner: String
    public var recordId: String?
    public var revision: Int?
    public var occurrences: [OccurrenceInput]?
    public var items: [Item]?

    /// One record revision's occurrences.
    public init(owner: String, recordId: String, revision: Int, occurrences: [OccurrenceInput]) {
        self.owner = owner; self.recordId = recordId; self.revision = revision; self.occurrences = occurrences
    }

    /// Many records' occurrences in one call.
    public init(owner: String, items: [Item]) { self.owner = owner; self.items = items }
    public static let spec = MethodSpec("occurrences/put", for: Self.self)
}
