/// `index/status`: counts for one owner, or the whole database.
public struct IndexStatus: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Embedder: Codable, Sendable, Hashable {
            public var available: Bool
            /// `embedder.provider` of the configuration (`local`, `openai`, …).
            public var provider: String
            public var problem: String?
            /// The local model's arithmetic (`float32` or `int8`) and why it is the one in use.
            public var precision: String?
            public var precisionReason: String?
            public init(available: Bool, provider: String, problem: String? = nil, precision: String? = nil, precisionReason: String? = nil) {
                self.available = available; self.provider = provider; self.problem = problem; self.precision = precision
                self.precisionReason = precisionReason
            }
        }
        public struct Patterns: Codable, Sendable, Hashable {
            public var occurrences: Int, occurrencesWaitingForVectors: Int
            public var groups: Int, activeGroups: Int
            public init(occurrences: Int, occurrencesWaitingForVectors: Int, groups: Int, activeGroups: Int) {
                self.occurrences = occurrences; self.occurrencesWaitingForVectors = occurrencesWaitingForVectors
                self.groups = groups; self.activeGroups = activeGroups
            }
        }
        /// The vector rows per index version and source (`model` or `client`).
        public struct VersionCount: Codable, Sendable, Hashable {
            public var indexVersion: String, source: String, vectors: Int
            public init(indexVersion: String, source: String, vectors: Int) { self.indexVersion = indexVersion; self.source = source; self.vectors = vectors }
        }
        /// Vectors staged by an unfinished `index/rebuild`, and records still to embed for the current version.
        public struct Rebuild: Codable, Sendable, Hashable {
            public var staged: Int, remaining: Int
            public init(staged: Int, remaining: Int) { self.staged = staged; self.remaining = remaining }
        }
        /// With `owner`, once hybrid search has measured it: the mean and spread of the cosine between
        /// the owner's record vectors, and how many vectors there were then.
        public struct CosineScale: Codable, Sendable, Hashable {
            public var mean: Double, spread: Double
            public var records: Int
            public init(mean: Double, spread: Double, records: Int) { self.mean = mean; self.spread = spread; self.records = records }
        }
        /// Null for the whole database.
        @Nullable public var owner: String?
        public var records = 0
        public var searchable = 0
        public var vectors = 0
        public var indexed = 0
        public var pendingEmbeddings = 0
        public var vectorsOtherVersions = 0
        public var indexVersion = ""
        public var model = ""
        public var dimension = 0
        public var embedder = Embedder(available: false, provider: "")
        public var vectorsByVersion: [VersionCount]?
        public var rebuild: Rebuild?
        public var schemaVersion = 0
        public var patterns: Patterns?
        public var cosineScale: CosineScale?
        public init(owner: String?) { self.owner = owner }
    }
    public var owner: String?
    public init(owner: String? = nil) { self.owner = owner }
    public static let spec = MethodSpec("index/status", for: Self.self)
}

/// `index/rebuild`: re-embeds every record with the current model (progress, cancellable).
public struct IndexRebuild: KindredRequest {
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
    public static let spec = MethodSpec("index/rebuild", for: Self.self)
}
