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

/// The index version: what the stored vectors depend on — the embedding model id, the dimension
/// and how documents were handed to the model (their prefix and input type, when any), e.g.
/// `all-MiniLM-L6-v2@384` or `multilingual-e5-small@384;document-type=passage`, and the arithmetic of
/// a local model when it is not float32 (`all-MiniLM-L6-v2@384;precision=int8`). Vectors of two
/// versions are never ranked together.
public struct IndexVersion: Sendable, Hashable, CustomStringConvertible {
    public let model: String
    public let dimension: Int
    public let documentPrefix: String
    public let documentInputType: String
    /// The local model's arithmetic when it changes the vectors (`int8`); empty for float32 and remote models.
    public let precision: String

    public init(model: String, dimension: Int, documentPrefix: String = "", documentInputType: String = "", precision: String = "") {
        self.model = model
        self.dimension = dimension
        self.documentPrefix = documentPrefix
        self.documentInputType = documentInputType
        self.precision = precision
    }

    public init(model: String, dimension: Int, forms: EmbeddingForms, precision: String = "") {
        self.init(model: model, dimension: dimension, documentPrefix: forms.documentPrefix, documentInputType: forms.documentInputType,
                  precision: precision)
    }

    /// Whether the dimension is known (a remote provider's is fixed by its first answer).
    public var isSettled: Bool { dimension > 0 }

    /// The same version with its dimension known.
    public func settled(dimension: Int) -> IndexVersion {
        IndexVersion(model: model, dimension: dimension, documentPrefix: documentPrefix, documentInputType: documentInputType,
                     precision: precision)
    }

    /// What follows `model@dimension`: `;precision=…`, `;document-type=…` and `;document-prefix="…"`
    /// (JSON-quoted, so trailing spaces show), each only when set.
    public var documentSuffix: String {
        var s = precision.isEmpty ? "" : ";precision=" + precision
        if !documentInputType.isEmpty { s += ";document-type=" + documentInputType }
        if !documentPrefix.isEmpty { s += ";document-prefix=" + JSONWriter.string(.string(documentPrefix)) }
        return s
    }

    /// `model@dimension` plus the document suffix; `model@?` while the dimension is not known.
    public var description: String { "\(model)@\(dimension > 0 ? String(dimension) : "?")\(documentSuffix)" }

    /// The dimension of a stored version string `model@N` of this model, whatever its documents'
    /// form (`model@N;document-…`): the model's size does not depend on it. Nil for any other string.
    public func dimension(ofStored version: String) -> Int? {
        let head = model + "@"
        guard version.hasPrefix(head) else { return nil }
        let digits = version.dropFirst(head.count).prefix { $0 != ";" }
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let n = Int(digits), n > 0, String(n) == digits else { return nil }
        return n
    }
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
