/// The configuration decoded once, by area: what each part of Kindred reads instead of looking
/// keys up by name. `Config` stays the layered store of dotted keys (defaults < file < environment
/// < flags) with the one table of defaults (`Config.defaults`); every key of that table is decoded
/// here (`SettingsTests`).
public struct Settings: Sendable, Equatable {
    public var rpc: RPCSettings
    public var search: SearchSettings
    public var records: RecordSettings
    public var index: IndexSettings
    public var embedder: EmbedderSettings
    public var usage: UsageSettings
    public var ingest: IngestSettings
    public var patterns: PatternSettings

    public init(_ config: Config) {
        rpc = RPCSettings(config)
        search = SearchSettings(config)
        records = RecordSettings(config)
        index = IndexSettings(config)
        embedder = EmbedderSettings(config)
        usage = UsageSettings(config)
        ingest = IngestSettings(config)
        patterns = PatternSettings(config)
    }

    /// The built-in defaults.
    public init() { self.init(Config()) }
}

/// `rpc.*`: the JSON-RPC transport.
public struct RPCSettings: Sendable, Equatable {
    /// Largest accepted message in bytes.
    public var maxMessageBytes: Int

    public init(_ c: Config) {
        maxMessageBytes = c.int("rpc.maxMessageBytes")
    }
}

/// `records.*` and `passages.*`: writes and how texts are split.
public struct RecordSettings: Sendable, Equatable {
    /// Longest wait of a `records/upsert` with `waitForIndex`, in seconds.
    public var waitForIndexTimeout: Double
    /// Longest passage, in Unicode scalars.
    public var passageMaxChars: Int

    public init(_ c: Config) {
        waitForIndexTimeout = Double(c.int("records.waitForIndexTimeoutMs")) / 1000
        passageMaxChars = c.int("passages.maxChars")
    }
}

/// `index.*` and `blas.*`: the vector index and the maths under it.
public struct IndexSettings: Sendable, Equatable {
    /// Vector dimension; 0: the model's own.
    public var dimension: Int
    /// Keep the int8 codes in a file beside the database.
    public var codesFile: Bool
    /// BLAS threads; 0: one per core.
    public var blasThreads: Int

    public init(_ c: Config) {
        dimension = c.int("index.dimension")
        codesFile = c.bool("index.codesFile")
        blasThreads = c.int("blas.threads")
    }
}

/// `usage.*`: what one owner may spend on remote providers per UTC day (0: no limit).
public struct UsageSettings: Sendable, Equatable {
    public var dailyCallLimit: Int
    public var dailyCharacterLimit: Int

    public init(_ c: Config) {
        dailyCallLimit = c.int("usage.dailyCallLimit")
        dailyCharacterLimit = c.int("usage.dailyCharacterLimit")
    }
}

/// `ingest.*`: bulk loading from a file.
public struct IngestSettings: Sendable, Equatable {
    /// Records per transaction.
    public var batchSize: Int

    public init(_ c: Config) {
        batchSize = c.int("ingest.batchSize")
    }
}
