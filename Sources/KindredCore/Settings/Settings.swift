/// The configuration decoded once, one struct per area of keys: what each part of Kindred reads
/// instead of looking keys up by name. A property's name is its key (`search.defaultLimit` is
/// `settings.search.defaultLimit`), so `Config.defaults` stays the one table of keys and defaults;
/// `SettingsTests` checks that every key of it is decoded, into its own area.
public struct Settings: Sendable, Equatable, Decodable {
    public var rpc: RPCSettings
    public var search: SearchSettings
    public var records: RecordSettings
    public var passages: PassageSettings
    public var index: IndexSettings
    public var embedder: EmbedderSettings
    public var usage: UsageSettings
    public var blas: BLASSettings
    public var ingest: IngestSettings
    public var patterns: PatternSettings
    public var cluster: ClusterKeys

    /// Every value of a `Config` has its key's type (`Config.set` checks it), so decoding fails
    /// only when a settings property names no key: a mistake `SettingsTests` catches.
    public init(_ config: Config) {
        do {
            self = try Settings(from: ConfigDecoder(config: config, prefix: ""))
        } catch {
            preconditionFailure("settings that the configuration does not hold: \(error)")
        }
    }

    /// The built-in defaults.
    public init() { self.init(Config()) }
}

/// `cluster.*` as configured; the Cluster module checks their ranges (`ClusterSettings`).
public struct ClusterKeys: Sendable, Equatable, Decodable {
    public var shards: Int
    public var failoverMs: Int
    public var standbys: Int
    public var timeoutMs: Int
    public var retryMs: Int
    public var snapshotEvery: Int
    public var snapshotEveryMs: Int
}

/// `rpc.*`: the JSON-RPC transport.
public struct RPCSettings: Sendable, Equatable, Decodable {
    /// Largest accepted message in bytes.
    public var maxMessageBytes: Int
}

/// `records.*`: writes.
public struct RecordSettings: Sendable, Equatable, Decodable {
    public var waitForIndexTimeoutMs: Int
    /// The longest wait of a `records/upsert` with `waitForIndex`, in seconds.
    public var waitForIndexTimeout: Double { Double(waitForIndexTimeoutMs) / 1000 }
}

/// `passages.*`: how texts are split for matching and display.
public struct PassageSettings: Sendable, Equatable, Decodable {
    /// Longest passage, in Unicode scalars.
    public var maxChars: Int
}

/// `index.*`: the vector index.
public struct IndexSettings: Sendable, Equatable, Decodable {
    /// Vector dimension; 0: the model's own.
    public var dimension: Int
    /// Keep the int8 codes in a file beside the database.
    public var codesFile: Bool
}

/// `usage.*`: what one owner may spend on remote providers per UTC day (0: no limit).
public struct UsageSettings: Sendable, Equatable, Decodable {
    public var dailyCallLimit: Int
    public var dailyCharacterLimit: Int
}

/// `blas.*`: the maths library's threads.
public struct BLASSettings: Sendable, Equatable, Decodable {
    /// 0: one per core.
    public var threads: Int
}

/// `ingest.*`: bulk loading from a file.
public struct IngestSettings: Sendable, Equatable, Decodable {
    /// Records per transaction.
    public var batchSize: Int
}
