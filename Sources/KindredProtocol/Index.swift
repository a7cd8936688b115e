/// `index/status`: counts for one owner, or the whole database.
public struct IndexStatus: KindredRequest {
    public static let spec = MethodSpec("index/status", [.optional("owner")],
        result: ["owner", "records", "searchable", "vectors", "indexed", "pendingEmbeddings", "vectorsOtherVersions", "indexVersion", "model", "dimension", "embedder", "schemaVersion", "patterns",
                 "vectorsByVersion", "rebuild"])
    public struct Result: Codable, Sendable, Hashable {
        public struct Embedder: Codable, Sendable, Hashable {
            public var available: Bool
            public var problem: String?
            /// The local model's arithmetic (`float32` or `int8`) and why it is the one in use.
            public var precision: String?
            public var precisionReason: String?
        }
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
        /// The vector rows per index version and source (`model` or `client`).
        public struct VersionCount: Codable, Sendable, Hashable { public var indexVersion: String; public var source: String; public var vectors: Int }
        public var vectorsByVersion: [VersionCount]?
        /// Vectors staged by an unfinished `index/rebuild`, and records still to embed for the current version.
        public struct Rebuild: Codable, Sendable, Hashable { public var staged: Int; public var remaining: Int }
        public var rebuild: Rebuild?
    }
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
}

/// `index/rebuild`: re-embeds every record with the current model (progress, cancellable).
public struct IndexRebuild: KindredRequest {
    public static let spec = MethodSpec("index/rebuild", [],
        result: ["reembedded", "resumed", "moved", "deletedOtherVersions", "spaceReclaimed", "pending", "indexVersion", "durationMs"])
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
        public init(reembedded: Int, resumed: Int? = nil, moved: Int? = nil, deletedOtherVersions: Int? = nil, spaceReclaimed: Bool? = nil,
                    pending: Int, indexVersion: String, durationMs: Int) {
            self.reembedded = reembedded; self.resumed = resumed; self.moved = moved; self.deletedOtherVersions = deletedOtherVersions
            self.spaceReclaimed = spaceReclaimed; self.pending = pending; self.indexVersion = indexVersion; self.durationMs = durationMs
        }
    }
    public init() {}
}
