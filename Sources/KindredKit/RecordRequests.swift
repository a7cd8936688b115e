/// A typed request: its method name, its params as the properties (wire names, absent when nil),
/// and the type of its result. `Kindred.send(_:)` answers it.
public protocol KindredRequest: Encodable, Sendable {
    associatedtype Result: Decodable & Sendable
    static var method: String { get }
}

/// A record as `records/upsert` takes it.
public struct RecordInput: Codable, Sendable, Hashable {
    public struct Permissions: Codable, Sendable, Hashable {
        public var search: Bool?
        public var patterns: Bool?
        public init(search: Bool? = nil, patterns: Bool? = nil) { self.search = search; self.patterns = patterns }
    }

    public var id: String
    public var revision: Int
    public var text: String
    public var kind: String?
    /// `YYYY-MM-DD` or an ISO-8601 timestamp.
    public var date: String?
    public var tags: [String]?
    /// Flat: strings, numbers, booleans or null.
    public var metadata: [String: KindredJSON]?
    public var permissions: Permissions?
    /// Bring your own embedding: exactly `dimension` numbers.
    public var vector: [Float]?

    public init(id: String, revision: Int, text: String, kind: String? = nil, date: String? = nil, tags: [String]? = nil,
                metadata: [String: KindredJSON]? = nil, permissions: Permissions? = nil, vector: [Float]? = nil) {
        self.id = id; self.revision = revision; self.text = text; self.kind = kind; self.date = date
        self.tags = tags; self.metadata = metadata; self.permissions = permissions; self.vector = vector
    }
}

/// `records/upsert`.
public struct UpsertRecords: KindredRequest {
    public static let method = "records/upsert"
    public struct Result: Decodable, Sendable, Hashable {
        public struct Item: Decodable, Sendable, Hashable {
            public var id: String
            public var revision: Int
            /// `created`, `updated`, `unchanged`, `stale` or `conflict`.
            public var status: String
            public var deleted: Bool?
        }
        public var results: [Item]
        /// With `waitForIndex`: whether every searchable record is in the semantic index.
        public var indexed: Bool?
    }

    public var owner: String
    public var records: [RecordInput]
    public var waitForIndex: Bool?
    public init(owner: String, records: [RecordInput], waitForIndex: Bool? = nil) {
        self.owner = owner; self.records = records; self.waitForIndex = waitForIndex
    }
}

/// `records/delete`.
public struct DeleteRecords: KindredRequest {
    public static let method = "records/delete"
    public struct Result: Decodable, Sendable, Hashable {
        public var deleted: [String]
        public var missing: [String]
    }
    public var owner: String
    public var ids: [String]
    public init(owner: String, ids: [String]) { self.owner = owner; self.ids = ids }
}

/// The answer of `records/get` and `records/setPermissions`.
public struct RecordState: Decodable, Sendable, Hashable {
    public struct Stored: Decodable, Sendable, Hashable {
        public var id: String
        public var revision: Int
        public var text: String
        public var kind: String?
        public var date: String?
        public var tags: [String]
        public var metadata: [String: KindredJSON]
        public var permissions: RecordInput.Permissions
    }
    public struct Passage: Decodable, Sendable, Hashable {
        public var index: Int
        /// Offsets in Unicode scalars into the record's text.
        public var start: Int
        public var end: Int
        public var text: String
        /// Whether the passage has a vector of the current index version.
        public var vector: Bool
    }
    public var record: Stored
    public var indexed: Bool
    /// `client`, `model`, or nil (none yet for the current index version).
    public var vector: String?
    public var indexVersion: String?
    public var passages: Int
    /// With `GetRecord(passages: true)`.
    public var passageList: [Passage]?
}

/// `records/get`.
public struct GetRecord: KindredRequest {
    public static let method = "records/get"
    public typealias Result = RecordState
    public var owner: String
    public var id: String
    public var passages: Bool?
    public init(owner: String, id: String, passages: Bool? = nil) { self.owner = owner; self.id = id; self.passages = passages }
}

/// `records/setPermissions`.
public struct SetPermissions: KindredRequest {
    public static let method = "records/setPermissions"
    public typealias Result = RecordState
    public var owner: String
    public var id: String
    public var permissions: RecordInput.Permissions
    public init(owner: String, id: String, permissions: RecordInput.Permissions) { self.owner = owner; self.id = id; self.permissions = permissions }
}

/// `records/purgeTombstones`.
public struct PurgeTombstones: KindredRequest {
    public static let method = "records/purgeTombstones"
    public struct Result: Decodable, Sendable, Hashable { public var purged: Int }
    public var owner: String?
    public var before: String
    public init(owner: String? = nil, before: String) { self.owner = owner; self.before = before }
}

/// `index/status`: counts for one owner, or the whole database.
public struct IndexStatus: KindredRequest {
    public static let method = "index/status"
    public struct Result: Decodable, Sendable, Hashable {
        public struct Embedder: Decodable, Sendable, Hashable { public var available: Bool; public var problem: String? }
        public struct Patterns: Decodable, Sendable, Hashable {
            public var occurrences: Int
            public var occurrencesWaitingForVectors: Int
            public var groups: Int
            public var activeGroups: Int
        }
        public var owner: String?
        public var records: Int
        public var searchable: Int
        public var vectors: Int
        public var indexed: Int
        public var pendingEmbeddings: Int
        public var vectorsOtherVersions: Int
        public var indexVersion: String
        public var model: String
        public var dimension: Int
        public var embedder: Embedder
        public var schemaVersion: Int
        public var patterns: Patterns?
    }
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
}

/// `index/rebuild`: re-embeds every record with the current model (progress, cancellable).
public struct RebuildIndex: KindredRequest {
    public static let method = "index/rebuild"
    public struct Result: Decodable, Sendable, Hashable {
        public var reembedded: Int
        /// Records whose new vector an earlier, interrupted rebuild had already staged.
        public var resumed: Int?
        /// Staged vectors moved in when the new version was complete.
        public var moved: Int?
        public var deletedOtherVersions: Int?
        public var spaceReclaimed: Bool?
        public var pending: Int
        public var indexVersion: String
        public var durationMs: Int
    }
    public init() {}
}
