/// Per-record permissions: may it appear in search, may it feed pattern discovery.
public struct Permissions: Sendable, Equatable {
    public var search: Bool
    public var patterns: Bool
    public init(search: Bool = true, patterns: Bool = true) {
        self.search = search
        self.patterns = patterns
    }
}

/// A record as the client sends it (validated) and as it is stored.
public struct Record: Sendable, Equatable {
    public var id: String
    public var revision: Int64
    public var text: String
    public var kind: String?
    public var date: String?
    public var tags: [String]
    public var metadata: JSONObject
    public var permissions: Permissions
    /// A client-computed vector (bring your own embeddings), if any.
    public var vector: [Float]?

    public init(
        id: String, revision: Int64, text: String, kind: String? = nil, date: String? = nil, tags: [String] = [],
        metadata: JSONObject = [:], permissions: Permissions = Permissions(), vector: [Float]? = nil
    ) {
        self.id = id
        self.revision = revision
        self.text = text
        self.kind = kind
        self.date = date
        self.tags = tags
        self.metadata = metadata
        self.permissions = permissions
        self.vector = vector
    }
}

/// What an upsert did to one record.
public enum UpsertStatus: String, Sendable, Equatable {
    case created, updated, unchanged, stale, conflict
}

/// The index version: embedding model id plus dimension, e.g. `all-MiniLM-L6-v2@384`.
public struct IndexVersion: Sendable, Hashable, CustomStringConvertible {
    public let model: String
    public let dimension: Int
    public init(model: String, dimension: Int) {
        self.model = model
        self.dimension = dimension
    }
    public var description: String { "\(model)@\(dimension)" }
}

/// Search filters shared by every search mode.
public struct SearchFilters: Sendable, Equatable {
    public enum TagsMode: String, Sendable { case any, all }
    public var kinds: [String]?
    public var tags: [String]?
    public var tagsMode: TagsMode = .any
    public var from: String?
    public var to: String?
    public var metadata: JSONObject?
    public init() {}
    public var isEmpty: Bool { kinds == nil && tags == nil && from == nil && to == nil && (metadata?.isEmpty ?? true) }
}
