#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import KindredCore
public import JSONRPC
import Grouping
import LinearAlgebra
import Storage
import VectorIndex

/// The composition root: one database file, its in-memory vector index and the embedder, exposed as
/// JSON-RPC methods. Writes are serialised by the server; reads run concurrently on pooled connections.
public final class KindredService: Sendable {
    public static let version = "0.1.0"

    public let config: Config
    /// `config` decoded once, by area.
    public let settings: Settings
    /// The pattern settings as the engine takes them.
    let patternConfig: PatternConfig
    public let databasePath: String
    /// The index version: fixed at start, except a remote provider's dimension when none is
    /// configured or stored, which its first answer fixes (`settleDimension`).
    let versionCell: VersionCell
    var indexVersion: IndexVersion { versionCell.value }
    /// The limits params are decoded with (client vectors must have the index's dimension).
    var paramRules: ParamRules {
        ParamRules(dimension: indexVersion.dimension, defaultLimit: settings.search.defaultLimit, maxLimit: settings.search.maxLimit)
    }
    let writer: Guarded<RecordStore>
    /// Copies the WAL into the file on its own thread (nil for an in-memory store).
    let checkpointer: Checkpointer?
    let readers: ReaderPool
    /// Searches read it together; loading and removing vectors take it alone.
    let index: ReadWriteGuarded<VectorIndex>
    /// The in-memory copy of the keyword index (built by `startKeywordIndex`).
    let keywords = KeywordMirror()
    /// Owners' record counts per language, which queries are read in (`queryLanguage`).
    let ownerLanguages = OwnerLanguages()
    /// The languages the embedding model serves (`embedder.languages`; nil: every language).
    let modelLanguages: Set<String>?
    let embedder: (any TextEmbedder)?
    /// Why the embedder is missing, when it is.
    let embedderProblem: String?
    let worker = BackgroundWorker()
    /// Owners' cosine scales per index version, in front of `owner_scales` (see `CosineScale`).
    let scales = CosineScales()
    /// Owners' pattern states as last read or saved, reused while the store's revision is unchanged.
    let patternStates = OwnerCache<PatternStateEntry>(capacity: 8)
    /// Owners' eligible occurrences, brought up to date from the store's input log.
    let occurrenceCopies = OwnerCache<OccurrencesEntry>(capacity: 4)
    /// Owners' distinct grouped records as of their last refresh (see `RefreshTally`).
    let recordCoverage = OwnerCache<RecordCoverage>(capacity: 8)
    /// Owners' group means as their last theme refresh computed them (`ThemePersistence.swift`).
    let themeProfiles = OwnerCache<ThemeProfilesEntry>(capacity: 8)

    /// Where the index's codes are saved at close (nil: `index.codesFile` is off or the store is in memory).
    let codesFilePath: String?
    /// The writer connection's `data_version` at start: unchanged at close when no other connection
    /// committed meanwhile, so the in-memory index is still exactly what SQLite holds.
    let dataVersionAtOpen: Int64
    /// Whether this start read the index from the codes file (rather than coding every row again).
    public let indexFromCodesFile: Bool

    /// The version that served before a switch to a remote provider, while `index/rebuild` builds the new one.
    let previous: PreviousVersion?

    /// Refuses a configuration the service would refuse at start, without opening a database (a
    /// command line checks it before it says a database is missing).
    public static func check(_ config: Config) throws {
        _ = try EmbedderSetup.precision(config)
        _ = try EmbeddingPresets.languages(Settings(config).embedder)
        _ = try JudgeSettings(Settings(config).patterns)
    }

    /// - Parameter migrationProgress: hears how far a long migration of the file is.
    /// - Parameter previousEmbedder: makes the local model, asked for only when the store holds
    ///   model vectors of another version and the current one is incomplete (see `PreviousVersion`).
    public init(config: Config, databasePath: String, embedder: (any TextEmbedder)?, embedderProblem: String? = nil,
                previousEmbedder: (() -> (any TextEmbedder)?)? = nil, migrationProgress: (@Sendable (String) -> Void)? = nil) throws {
        try Self.check(config)
        modelLanguages = try EmbeddingPresets.languages(Settings(config).embedder)
        self.config = config
        settings = Settings(config)
        patternConfig = PatternConfig(settings.patterns, modelScale: EmbeddingPresets.similarityScale(settings.embedder))
        self.databasePath = databasePath
        let store = try RecordStore(path: databasePath, progress: migrationProgress)
        // A database written at another precision keeps it while `embedder.precision` is auto.
        let embedder = try embedder?.keepingStoredPrecision { try store.vectorCount(indexVersion: $0) }
        self.embedder = embedder
        self.embedderProblem = embedder == nil ? (embedderProblem ?? "no embedder is configured") : nil
        var version = embedder?.indexVersion ?? IndexVersion(model: settings.embedder.model, dimension: settings.index.dimension)
        if !version.isSettled {
            // No dimension configured: the one of the vectors stored for this model and form, else
            // a remote provider's first answer (without an embedder, the default model's 384).
            if let d = try VersionCell.storedDimension(store, of: version) {
                embedder?.adoptDimension(d)
                version = version.settled(dimension: embedder?.dimension ?? d)
            } else if embedder == nil {
                version = version.settled(dimension: Self.dimensionWithoutEmbedder)
            }
        }
        versionCell = VersionCell(version)
        let dimension = version.dimension
        writer = Guarded(store)
        // A file's checkpoints run beside the writer (an in-memory store has no WAL).
        if !databasePath.isEmpty && databasePath != ":memory:" {
            let c = try Checkpointer(path: databasePath)
            store.database.handCheckpoints(to: c)
            checkpointer = c
        } else {
            checkpointer = nil
        }
        readers = ReaderPool(path: databasePath)
        let vi = VectorIndex(dimension: dimension, rows: StoredRows(readers: readers, version: versionCell),
                             sharedScanQueries: settings.search.sharedScanQueries, scanThreads: settings.search.scanThreads)
        codesFilePath = settings.index.codesFile && !databasePath.isEmpty && databasePath != ":memory:" ? databasePath + "-codes" : nil
        dataVersionAtOpen = try store.dataVersion()
        var restored = false
        if let codesFilePath, version.isSettled {
            if let token = try store.takeCodesFileToken(indexVersion: version) {
                restored = (try? CodesFile.read(into: vi, from: codesFilePath, token: token)) != nil
            }
            if !restored { unlink(codesFilePath) }
        }
        if !restored && version.isSettled { try Self.loadVectors(store, version: version, into: vi) }
        indexFromCodesFile = restored
        index = ReadWriteGuarded(vi)
        if let previousEmbedder, embedder?.remoteProvider != nil {
            previous = try PreviousVersion.load(store: store, readers: readers, current: version, sharedScanQueries: settings.search.sharedScanQueries,
                                                make: previousEmbedder)
        } else {
            previous = nil
        }
    }

    /// The dimension client vectors have when there is no embedder and neither `index.dimension`
    /// nor stored vectors say (the default model's).
    static let dimensionWithoutEmbedder = 384

    /// Fixes the index's dimension from a remote provider's first answer, when nothing had fixed
    /// it; the (empty) vector index takes it at the same time, under its write lock, so no row of
    /// another size can reach it.
    func settleDimension(_ d: Int) {
        guard d > 0, !indexVersion.isSettled else { return }
        writeIndex { index in
            if versionCell.settle(dimension: d) { index.settle(dimension: d) }
        }
    }

    /// Codes every searchable vector of `version` into `index`, owner by owner in bounded batches
    /// (the float32 rows stay in SQLite).
    static func loadVectors(_ store: RecordStore, version: IndexVersion, into index: VectorIndex) throws {
        let d = version.dimension
        var rowids: [String: [Int64]] = [:]
        var vectors: [String: [Float]] = [:]
        var held = 0
        func flush() {
            for owner in rowids.keys.sorted() { index.load(owner: owner, rowids: rowids[owner]!, vectors: vectors[owner]!) }
            rowids.removeAll(keepingCapacity: true)
            vectors.removeAll(keepingCapacity: true)
            held = 0
        }
        try store.forEachSearchableVector(indexVersion: version) { rowid, owner, bytes in
            if VectorBlob.decode(bytes, dimension: d, into: &vectors[owner, default: []]) {
                rowids[owner, default: []].append(rowid)
                held += 1
                if held == 16_384 { flush() }
            }
        }
        flush()
    }

    /// Closes every connection (call after the last request).
    public func close() {
        stopBackgroundEmbedding()
        readers.close()
        checkpointer?.stop()
        writer.with { store in
            saveCodesFile(store)
            // Fold the write-ahead log back into the file, then close.
            try? store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            store.database.close()
        }
    }

    /// Writes the codes file and stamps it in SQLite, when no other connection wrote meanwhile (the
    /// in-memory index then holds exactly what SQLite does). The check, the file and the stamp are
    /// one write transaction: another process (an `ingest` beside a `status`) cannot commit between
    /// the check and the stamp. Any failure just leaves no stamp.
    private func saveCodesFile(_ store: RecordStore) {
        guard let codesFilePath, indexVersion.isSettled else { return }
        var rng = SystemRandomNumberGenerator()
        let token = String(rng.next(), radix: 16) + String(rng.next(), radix: 16)
        var wrote = false
        do {
            try store.database.transaction {
                // Another connection committed since the start: the file on disk (if any) is its.
                guard try store.dataVersion() == dataVersionAtOpen else { return }
                wrote = true
                try index.read { try CodesFile.write($0, to: codesFilePath, token: token) }
                try store.stampCodesFile(token: token, indexVersion: indexVersion)
            }
        } catch {
            if wrote { unlink(codesFilePath) }
        }
    }

    // MARK: index access

    func readIndex<T>(_ body: (VectorIndex) throws -> T) rethrows -> T {
        try index.read(body)
    }

    func writeIndex<T>(_ body: (VectorIndex) throws -> T) rethrows -> T {
        try index.write(body)
    }

    func withWriter<T>(_ body: (RecordStore) throws -> T) throws(ResponseError) -> T {
        try Self.answering(owner: nil) { try writer.with { store in try Self.interruptible(store, body) } }
    }

    func withReader<T>(_ body: (RecordStore) throws -> T) throws(ResponseError) -> T {
        try Self.answering(owner: nil) { try readers.with { store in try Self.interruptible(store, body) } }
    }

    /// Runs `work` and maps what it throws to the error a client is answered: a `ResponseError` as it
    /// is; with an `owner` (pattern work), a grouping engine error by `ResponseError.grouping`;
    /// anything else as a storage failure.
    static func answering<T>(owner: String?, _ work: () throws -> T) throws(ResponseError) -> T {
        do {
            return try work()
        } catch let e as ResponseError {
            throw e
        } catch let e as GroupingError where owner != nil {
            throw ResponseError.grouping(e, owner: owner ?? "")
        } catch {
            throw ResponseError.storage(error)
        }
    }

    /// Runs `body` on `store` so that cancelling the current request (if any) interrupts the
    /// statement running on that connection — only this connection, and only while `body` holds it.
    /// An interrupted statement inside a transaction rolls the transaction back; the request is then
    /// answered as cancelled.
    static func interruptible<T>(_ store: RecordStore, _ body: (RecordStore) throws -> T) throws -> T {
        guard let ctx = RequestContext.current else { return try body(store) }
        let interrupter = store.database.interrupter
        do {
            return try ctx.token.whileRegistered(onCancel: { interrupter.interrupt() }) { try body(store) }
        } catch let e as SQLiteError where e.isInterrupt && ctx.isCancelled {
            throw ResponseError.cancelled
        }
    }

    // MARK: registration

    /// Registers every method on `server` (see `routes`).
    public func register(on server: Server) {
        for route in Self.routes {
            server.register(route.method, kind: route.kind) { [self] p, ctx in try route.run(self, p, ctx) }
        }
    }

    /// The `initialize` result.
    public func initializeResult(methods: [String]) -> JSONValue {
        let indexVersion = indexVersion
        var embedderInfo: JSONObject = ["model": .string(indexVersion.model), "dimension": .from(indexVersion.dimension),
                                        "indexVersion": .string(indexVersion.description), "available": .bool(embedder != nil),
                                        "provider": .string(settings.embedder.provider)]
        if let embedderProblem { embedderInfo["problem"] = .string(embedderProblem) }
        return [
            "serverInfo": ["name": "kindred", "version": .string(Self.version)],
            "capabilities": [
                "methods": .from(methods + ["initialize", "shutdown"]).sortedArray,
                "embedder": .object(embedderInfo),
                "searchModes": ["hybrid", "semantic", "keyword"],
                "framing": ["lsp", "ndjson"],
                "progress": true,
                "cancellation": true,
                "judge": .string((try? JudgeSettings(settings.patterns))?.mode.rawValue ?? "off"),
            ],
        ]
    }

}

extension JSONValue {
    var sortedArray: JSONValue {
        guard case .array(let a) = self else { return self }
        return .array(a.sorted { ($0.stringValue ?? "") < ($1.stringValue ?? "") })
    }
}
