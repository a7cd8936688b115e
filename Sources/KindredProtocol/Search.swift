/// Search filters (all optional, combined with AND).
public struct SearchFilters: Codable, Sendable, Hashable {
    /// The keys a filters object may hold.
    public static let fields = Shape.fieldNames(of: Self.self)

    public var kinds: [String]?
    public var tags: [String]?
    /// `any` (default) or `all`.
    public var tagsMode: String?
    public var from: String?
    public var to: String?
    public var metadata: [String: KindredJSON]?
    public init(kinds: [String]? = nil, tags: [String]? = nil, tagsMode: String? = nil, from: String? = nil, to: String? = nil,
                metadata: [String: KindredJSON]? = nil) {
        self.kinds = kinds; self.tags = tags; self.tagsMode = tagsMode; self.from = from; self.to = to; self.metadata = metadata
    }
}

extension SearchFilters: FieldNotes {
    public static let typeNote: String? = "Optional filters, combined with AND."
    public static let fieldNotes: [String: FieldNote] = [
        "kinds": "Only records of these kinds (e.g. dream, note).",
        "tags": "Only records with these tags (see tagsMode).",
        "tagsMode": FieldNote("Records with any (default) or all of the tags.", oneOf: ["any", "all"]),
        "from": "Only records dated on or after this ISO-8601 date (YYYY-MM-DD).",
        "to": "Only records dated on or before this ISO-8601 date.",
        "metadata": "Only records whose metadata has these exact key/value pairs.",
    ]
}

extension FieldNote {
    /// The `limit` of both searches (`search.maxLimit` is 1000 unless configured).
    static let searchLimit = FieldNote("How many records at most (default 10).", range: 1...1000)
}

/// The answer of `search/query` and `search/similar`.
public struct SearchResults: Codable, Sendable, Hashable {
    public struct Span: Codable, Sendable, Hashable {
        /// Offsets in Unicode scalars into the record's text.
        public var start: Int
        public var end: Int
        public var text: String
        public init(start: Int, end: Int, text: String) { self.start = start; self.end = end; self.text = text }
    }
    public struct Hit: Codable, Sendable, Hashable {
        public var id: String
        public var revision: Int
        /// Higher is better; comparable within one answer.
        public var score: Double
        public var kind: String?
        public var date: String?
        public var passage: Span
        public var highlight: Span?
        public init(id: String, revision: Int, score: Double, kind: String? = nil, date: String? = nil, passage: Span, highlight: Span? = nil) {
            self.id = id; self.revision = revision; self.score = score; self.kind = kind; self.date = date
            self.passage = passage; self.highlight = highlight
        }
    }
    public struct Degraded: Codable, Sendable, Hashable {
        public var reason: String
        public init(reason: String) { self.reason = reason }
    }
    public var results: [Hit]
    /// The mode used: `hybrid`, `semantic` or `keyword`.
    public var mode: String
    public var degraded: Degraded?
    /// How many of the owner's searchable records still wait for a vector.
    public var pending: Int?
    public var notes: [String]?
    public init(results: [Hit], mode: String, degraded: Degraded? = nil, pending: Int? = nil, notes: [String]? = nil) {
        self.results = results; self.mode = mode; self.degraded = degraded; self.pending = pending; self.notes = notes
    }
}

/// `search/query`: by `text`, by `vector`, or both.
public struct SearchQuery: KindredRequest {
    public typealias Result = SearchResults
    public var owner: String
    public var text: String?
    public var vector: [Float]?
    public var limit: Int?
    /// `hybrid` (default), `semantic` or `keyword`.
    public var mode: String?
    public var filters: SearchFilters?
    public init(owner: String, text: String? = nil, vector: [Float]? = nil, limit: Int? = nil, mode: String? = nil, filters: SearchFilters? = nil) {
        self.owner = owner; self.text = text; self.vector = vector; self.limit = limit; self.mode = mode; self.filters = filters
    }
    public static let spec = MethodSpec("search/query", for: Self.self)
}

extension SearchQuery: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = [
        "text": "What to look for, in natural language or keywords.",
        "mode": FieldNote("hybrid (default): meaning and words; semantic: meaning only; keyword: words only.",
                          oneOf: ["hybrid", "semantic", "keyword"]),
        "limit": .searchLimit,
    ]
}

/// `search/similar`: the records nearest to one of the owner's records.
public struct SearchSimilar: KindredRequest {
    public typealias Result = SearchResults
    public var owner: String
    public var id: String
    public var limit: Int?
    public var filters: SearchFilters?
    public init(owner: String, id: String, limit: Int? = nil, filters: SearchFilters? = nil) {
        self.owner = owner; self.id = id; self.limit = limit; self.filters = filters
    }
    public static let spec = MethodSpec("search/similar", for: Self.self)
}

extension SearchSimilar: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = [
        "id": "The record to start from.",
        "limit": .searchLimit,
    ]
}
