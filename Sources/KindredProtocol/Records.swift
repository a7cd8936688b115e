import Foundation

/// A record as `records/upsert` takes it.
public struct RecordInput: Codable, Sendable, Hashable {
    /// The keys a record object may hold: its fields, in the order it reads them.
    public static let fields = Shape.fieldNames(of: Self.self)

    public struct Permissions: Codable, Sendable, Hashable {
        /// The keys a permissions object may hold.
        public static let fields = Shape.fieldNames(of: Self.self)
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
    public var metadata: Metadata?
    public var permissions: Permissions?
    /// Bring your own embedding: exactly `dimension` numbers. Sent as base64 of little-endian float32
    /// (the server takes it as it takes a JSON array of the same numbers, without formatting and
    /// parsing a decimal number per component).
    public var vector: [Float]?

    public init(id: String, revision: Int, text: String, kind: String? = nil, date: String? = nil, tags: [String]? = nil,
                metadata: Metadata? = nil, permissions: Permissions? = nil, vector: [Float]? = nil) {
        self.id = id; self.revision = revision; self.text = text; self.kind = kind; self.date = date
        self.tags = tags; self.metadata = metadata; self.permissions = permissions; self.vector = vector
    }

    private enum CodingKeys: String, CodingKey { case id, revision, text, kind, date, tags, metadata, permissions, vector }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(revision, forKey: .revision)
        try c.encode(text, forKey: .text)
        try c.encodeIfPresent(kind, forKey: .kind)
        try c.encodeIfPresent(date, forKey: .date)
        try c.encodeIfPresent(tags, forKey: .tags)
        try c.encodeIfPresent(metadata, forKey: .metadata)
        try c.encodeIfPresent(permissions, forKey: .permissions)
        try c.encodeIfPresent(vector.map(Self.base64), forKey: .vector)
    }

    /// Reads `vector` as either form the server takes: an array of numbers or base64 of little-endian float32.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        revision = try c.decode(Int.self, forKey: .revision)
        text = try c.decode(String.self, forKey: .text)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
        date = try c.decodeIfPresent(String.self, forKey: .date)
        tags = try c.decodeIfPresent([String].self, forKey: .tags)
        metadata = try c.decodeIfPresent(Metadata.self, forKey: .metadata)
        permissions = try c.decodeIfPresent(Permissions.self, forKey: .permissions)
        if let s = try? c.decodeIfPresent(String.self, forKey: .vector) {
            guard let data = Data(base64Encoded: s), data.count % 4 == 0 else {
                throw DecodingError.dataCorruptedError(forKey: .vector, in: c, debugDescription: "not base64 of little-endian float32")
            }
            let bytes = [UInt8](data)
            var floats = [Float]()
            floats.reserveCapacity(bytes.count / 4)
            for i in stride(from: 0, to: bytes.count, by: 4) {
                var bits = UInt32(bytes[i + 3])
                bits = bits << 8 | UInt32(bytes[i + 2])
                bits = bits << 8 | UInt32(bytes[i + 1])
                bits = bits << 8 | UInt32(bytes[i])
                floats.append(Float(bitPattern: bits))
            }
            vector = floats
        } else {
            vector = try c.decodeIfPresent([Float].self, forKey: .vector)
        }
    }

    /// The float32 values little-endian, in base64.
    static func base64(_ v: [Float]) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(v.count * 4)
        for x in v {
            let b = x.bitPattern
            bytes += [UInt8(truncatingIfNeeded: b), UInt8(truncatingIfNeeded: b >> 8), UInt8(truncatingIfNeeded: b >> 16), UInt8(truncatingIfNeeded: b >> 24)]
        }
        return Data(bytes).base64EncodedString()
    }
}

/// `records/upsert`.
public struct RecordsUpsert: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public struct Item: Codable, Sendable, Hashable {
            public var id: String
            public var revision: Int
            /// `created`, `updated`, `unchanged`, `stale` or `conflict`.
            public var status: String
            /// True when the record replaced a deleted one (absent otherwise).
            public var deleted: Bool?
            public init(id: String, revision: Int, status: String, deleted: Bool? = nil) {
                self.id = id; self.revision = revision; self.status = status; self.deleted = deleted
            }
        }
        public var results: [Item]
        /// With `waitForIndex`: whether every searchable record is in the semantic index.
        public var indexed: Bool?
        public init(results: [Item], indexed: Bool? = nil) { self.results = results; self.indexed = indexed }
    }

    public var owner: String
    public var records: [RecordInput]
    public var waitForIndex: Bool?
    public init(owner: String, records: [RecordInput], waitForIndex: Bool? = nil) {
        self.owner = owner; self.records = records; self.waitForIndex = waitForIndex
    }
    public static let spec = MethodSpec("records/upsert", for: Self.self)
}

/// `records/delete`.
public struct RecordsDelete: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public var deleted: [String]
        public var missing: [String]
        public init(deleted: [String], missing: [String]) { self.deleted = deleted; self.missing = missing }
    }
    public var owner: String
    public var ids: [String]
    public init(owner: String, ids: [String]) { self.owner = owner; self.ids = ids }
    public static let spec = MethodSpec("records/delete", for: Self.self)
}

/// The answer of `records/get` and `records/setPermissions`.
public struct RecordState: Codable, Sendable, Hashable {
    public struct Stored: Codable, Sendable, Hashable {
        public var id: String
        public var revision: Int
        public var text: String
        @Nullable public var kind: String?
        @Nullable public var date: String?
        public var tags: [String]
        public var metadata: Metadata
        public var permissions: RecordInput.Permissions
        public init(id: String, revision: Int, text: String, kind: String?, date: String?, tags: [String], metadata: Metadata,
                    permissions: RecordInput.Permissions) {
            self.id = id; self.revision = revision; self.text = text; self.kind = kind; self.date = date; self.tags = tags
            self.metadata = metadata; self.permissions = permissions
        }
    }
    public struct Passage: Codable, Sendable, Hashable {
        public var index: Int
        /// Offsets in Unicode scalars into the record's text.
        public var start: Int, end: Int
        public var text: String
        /// Whether the passage has a vector of the current index version.
        public var vector: Bool
        public init(index: Int, start: Int, end: Int, text: String, vector: Bool) {
            self.index = index; self.start = start; self.end = end; self.text = text; self.vector = vector
        }
    }
    public var record: Stored
    public var indexed: Bool
    /// `client`, `model`, or null (none yet for the current index version).
    @Nullable public var vector: String?
    /// The index version of the record's vector (null: none).
    @Nullable public var indexVersion: String?
    public var passages: Int
    /// With `RecordsGet(passages: true)`.
    public var passageList: [Passage]?
    public init(record: Stored, indexed: Bool, vector: String?, indexVersion: String?, passages: Int, passageList: [Passage]? = nil) {
        self.record = record; self.indexed = indexed; self.vector = vector; self.indexVersion = indexVersion
        self.passages = passages; self.passageList = passageList
    }
}

/// `records/get`.
public struct RecordsGet: KindredRequest {
    public typealias Result = RecordState
    public var owner: String
    public var id: String
    public var passages: Bool?
    public init(owner: String, id: String, passages: Bool? = nil) { self.owner = owner; self.id = id; self.passages = passages }
    public static let spec = MethodSpec("records/get", for: Self.self)
}

extension RecordsGet: FieldNotes {
    public static let fieldNotes: [String: FieldNote] = ["id": "The record id."]
}

/// `records/setPermissions`.
public struct RecordsSetPermissions: KindredRequest {
    public typealias Result = RecordState
    public var owner: String
    public var id: String
    public var permissions: RecordInput.Permissions
    public init(owner: String, id: String, permissions: RecordInput.Permissions) { self.owner = owner; self.id = id; self.permissions = permissions }
    public static let spec = MethodSpec("records/setPermissions", for: Self.self)
}

/// `records/purgeTombstones`.
public struct RecordsPurgeTombstones: KindredRequest {
    public struct Result: Codable, Sendable, Hashable {
        public var purged: Int
        public init(purged: Int) { self.purged = purged }
    }
    public var owner: String?
    public var before: String
    public init(owner: String? = nil, before: String) { self.owner = owner; self.before = before }
    public static let spec = MethodSpec("records/purgeTombstones", for: Self.self)
}
