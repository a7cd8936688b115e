internal import CNATS

/// A JetStream key-value bucket: values with revisions, and updates that only succeed against the
/// revision they were read at (so two nodes cannot both take the same key).
public final class KeyValue: @unchecked Sendable {
    let kv: OpaquePointer
    public let bucket: String
    let connection: NATSConnection

    /// Opens the bucket; when it is missing, creates it with `replicas` copies on disk (or, with
    /// nil, fails: the cluster has not been created).
    /// With `quick`, its calls wait at most the connection's `quickWaitMs` (a heartbeat, retried at once).
    public init(_ connection: NATSConnection, bucket: String, replicas: Int?, quick: Bool = false) throws(NATSError) {
        self.bucket = bucket
        self.connection = connection
        let js = quick ? connection.quickJS : connection.js
        var store: OpaquePointer?
        var opened = js_KeyValue(&store, js, bucket)
        // While the servers elect a new leader (one of them went away) the bucket's lookup times out.
        for _ in 0..<3 where opened == NATS_TIMEOUT { opened = js_KeyValue(&store, js, bucket) }
        if opened != NATS_OK {
            guard let replicas else { throw NATSError(opened, "opening key-value bucket \(bucket) (has a node started?)") }
            let strings = CStrings()
            var cfg = kvConfig()
            kvConfig_Init(&cfg)
            cfg.Bucket = strings.copy(bucket)
            cfg.History = 1
            cfg.Replicas = Int32(replicas)
            cfg.StorageType = js_FileStorage
            try NATSError.check(js_CreateKeyValue(&store, connection.js, &cfg), "creating key-value bucket \(bucket)")
        }
        kv = store!
    }

    deinit { kvStore_Destroy(kv) }

    public struct Entry: Sendable, Equatable {
        public let value: String
        public let revision: UInt64
    }

    /// The key's value and revision, or nil when it has none (never set, or deleted).
    public func get(_ key: String) throws(NATSError) -> Entry? {
        var entry: OpaquePointer?
        let s = kvStore_Get(&entry, kv, key)
        if s == NATS_NOT_FOUND { return nil }
        try NATSError.check(s, "reading \(bucket)/\(key)")
        defer { kvEntry_Destroy(entry) }
        let value = kvEntry_ValueString(entry).map { String(cString: $0) } ?? ""
        return Entry(value: value, revision: kvEntry_Revision(entry))
    }

    /// Sets the key only when it has no value; returns the new revision, or nil when it has one.
    public func create(_ key: String, _ value: String) throws(NATSError) -> UInt64? {
        var rev: UInt64 = 0
        let s = Array(value.utf8).withUnsafeBytes { kvStore_Create(&rev, kv, key, $0.baseAddress, Int32($0.count)) }
        if s == NATS_OK { return rev }
        if try get(key) != nil { return nil }
        throw NATSError(s, "creating \(bucket)/\(key)")
    }

    /// Sets the key only when its revision is still `revision`; returns the new revision, or nil
    /// when another update came first.
    public func update(_ key: String, _ value: String, revision: UInt64) throws(NATSError) -> UInt64? {
        var rev: UInt64 = 0
        let s = Array(value.utf8).withUnsafeBytes { kvStore_Update(&rev, kv, key, $0.baseAddress, Int32($0.count), revision) }
        if s == NATS_OK { return rev }
        if let now = try get(key), now.revision != revision { return nil }
        throw NATSError(s, "updating \(bucket)/\(key)")
    }

    /// The key's value as the bucket's stream leader holds it (a `get` may be answered by a replica
    /// a moment behind, as one restarting after its server was killed): nil when it has none.
    public func leaderGet(_ key: String) throws(NATSError) -> String? {
        guard let (_, data) = try connection.lastMessage(stream: "KV_\(bucket)", subject: "$KV.\(bucket).\(key)") else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sets the key whatever it held.
    public func put(_ key: String, _ value: String) throws(NATSError) {
        var rev: UInt64 = 0
        let s = Array(value.utf8).withUnsafeBytes { kvStore_Put(&rev, kv, key, $0.baseAddress, Int32($0.count)) }
        try NATSError.check(s, "writing \(bucket)/\(key)")
    }
}
