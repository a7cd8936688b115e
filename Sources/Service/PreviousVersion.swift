import KindredCore
import JSONRPC
import Storage
import Synchronization
import VectorIndex

/// The index version that served before a switch to a remote provider, kept serving semantic
/// search while `index/rebuild` builds the new one — possible when it is the local model's version
/// and that model is installed (the query must be embedded by the model that made the vectors).
/// Retired when the rebuild completes.
final class PreviousVersion: Sendable {
    let embedder: any TextEmbedder
    let version: IndexVersion
    let index: Guarded<VectorIndex>
    private let active = Atomic<Bool>(true)

    init(embedder: any TextEmbedder, version: IndexVersion, index: VectorIndex) {
        self.embedder = embedder
        self.version = version
        self.index = Guarded(index)
    }

    var isActive: Bool { active.load(ordering: .acquiring) }
    func retire() { active.store(false, ordering: .releasing) }

    /// Loads the previous version's searchable vectors, when the store holds model vectors of it
    /// and the current version is not complete; nil otherwise (`make` is only called then).
    static func load(store: RecordStore, readers: ReaderPool, current: IndexVersion, sharedScanQueries: Int,
                     make: () -> (any TextEmbedder)?) throws -> PreviousVersion? {
        let versions = try store.vectorVersions(owner: nil)
        guard versions.contains(where: { $0.source == "model" && $0.version != current.description }),
              try store.rebuildRemaining(indexVersion: current, everything: false) > 0,
              let made = make() else { return nil }
        let embedder = try made.keepingStoredPrecision { v in
            versions.filter { $0.version == v.description && $0.source == "model" }.reduce(0) { $0 + $1.count }
        }
        let version = embedder.indexVersion
        guard version != current, versions.contains(where: { $0.version == version.description && $0.source == "model" }) else { return nil }
        let index = VectorIndex(dimension: version.dimension, rows: StoredRows(readers: readers, version: version), sharedScanQueries: sharedScanQueries)
        try KindredService.loadVectors(store, version: version, into: index)
        return PreviousVersion(embedder: embedder, version: version, index: index)
    }
}

extension KindredService {
    /// The previous version, when it should serve `owner`'s search: still active and some of the
    /// owner's records have no vector of the current version yet.
    func servingPrevious(owner: String) -> PreviousVersion? {
        guard let previous, previous.isActive else { return nil }
        let version = indexVersion
        let waiting = (try? withReader { try $0.pendingSearchableCount(owner: owner, indexVersion: version) }) ?? 0
        return waiting > 0 ? previous : nil
    }

    /// Nearest rows in the serving index: the current version's, or the previous version's with
    /// only rows that still hold a searchable vector of that version (deleted, edited, hidden and
    /// already re-embedded records are dropped).
    func semanticHits(_ previous: PreviousVersion?, owner: String, query: [Float], k: Int, allowed: Set<Int64>?) throws(ResponseError) -> [ScoredRow] {
        guard let previous else { return readIndex { $0.search(owner: owner, query: query, k: k, allowed: allowed) } }
        let hits = previous.index.with { $0.search(owner: owner, query: query, k: k, allowed: allowed) }
        let rows = try withReader { try $0.records(rowids: hits.map(\.rowid)) }
        let version = previous.version.description
        return hits.filter { h in rows[h.rowid].map { $0.vectorVersion == version && $0.record.permissions.search } ?? false }
    }
}
