/// `index/status`: counts for one owner, or the whole database.
public struct IndexStatus: KindredRequest {
    public static let spec = MethodSpec("index/status", [.optional("owner")])
    public struct Result: Codable, Sendable, Hashable {
        public struct Embedder: Codable, Sendable, Hashable { public var available: Bool; public var problem: String? }
        public struct Patterns: Codable, Sendable, Hashable {
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
public struct IndexRebuild: KindredRequest {
    public static let spec = MethodSpec("index/rebuild", [])
    public struct Result: Codable, Sendable, Hashable {
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
