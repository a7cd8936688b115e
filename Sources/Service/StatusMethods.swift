import KindredCore
import JSONRPC
import Storage
import KindredProtocol

extension KindredService {
    func status(_ req: IndexStatus) throws(ResponseError) -> IndexStatus.Result {
        let owner = req.owner
        let version = indexVersion
        let s = try withReader { try $0.status(owner: owner, indexVersion: version) }
        let (byVersion, staged, remaining) = try withReader { store in
            (try store.vectorVersions(owner: owner), try store.stagedCount(indexVersion: version),
             try store.rebuildRemaining(indexVersion: version, everything: false))
        }
        let counts = try withReader { try $0.patternCounts(owner: owner, indexVersion: version) }
        var result = IndexStatus.Result(owner: owner)
        result.records = s.records
        result.searchable = s.searchable
        result.vectors = s.vectors
        result.indexed = readIndex { idx in owner.map { idx.count(owner: $0) } ?? idx.count }
        result.pendingEmbeddings = s.pendingEmbeddings
        result.vectorsOtherVersions = s.vectorsOtherVersions
        result.indexVersion = version.description
        result.model = version.model
        result.dimension = version.dimension
        let precision = embedder?.precisionInUse
        result.embedder = .init(available: embedder != nil, provider: settings.embedder.provider, problem: embedderProblem,
                                precision: precision?.name, precisionReason: precision?.reason)
        result.vectorsByVersion = byVersion.map { .init(indexVersion: $0.version, source: $0.source, vectors: $0.count) }
        result.rebuild = .init(staged: staged, remaining: remaining)
        result.schemaVersion = RecordStore.schemaVersion
        result.patterns = .init(occurrences: counts.occurrences, occurrencesWaitingForVectors: counts.occurrencesWaiting,
                                groups: counts.groups, activeGroups: counts.activeGroups)
        if let owner, let s = keptCosineScale(owner: owner) { result.cosineScale = .init(mean: s.mean, spread: s.spread, records: s.records) }
        return result
    }
}
