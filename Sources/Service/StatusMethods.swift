import KindredCore
import JSONRPC
import Storage
import KindredProtocol

extension KindredService {
    func status(_ req: IndexStatus.Checked) throws(ResponseError) -> JSONValue {
        let owner = req.owner
        let version = indexVersion
        let s = try withReader { try $0.status(owner: owner, indexVersion: version) }
        let (byVersion, staged, remaining) = try withReader { store in
            (try store.vectorVersions(owner: owner), try store.stagedCount(indexVersion: version),
             try store.rebuildRemaining(indexVersion: version, everything: false))
        }
        let indexed = readIndex { idx in owner.map { idx.count(owner: $0) } ?? idx.count }
        var embedderInfo: JSONObject = ["available": .bool(embedder != nil), "provider": .string(settings.embedder.provider)]
        if let embedderProblem { embedderInfo["problem"] = .string(embedderProblem) }
        if let p = embedder?.precisionInUse {
            embedderInfo["precision"] = .string(p.name)
            embedderInfo["precisionReason"] = .string(p.reason)
        }
        var result: JSONObject = [
            "owner": .from(owner),
            "records": .from(s.records),
            "searchable": .from(s.searchable),
            "vectors": .from(s.vectors),
            "indexed": .from(indexed),
            "pendingEmbeddings": .from(s.pendingEmbeddings),
            "vectorsOtherVersions": .from(s.vectorsOtherVersions),
            "indexVersion": .string(version.description),
            "model": .string(version.model),
            "dimension": .from(version.dimension),
            "embedder": .object(embedderInfo),
            "vectorsByVersion": .array(byVersion.map { ["indexVersion": .string($0.version), "source": .string($0.source), "vectors": .from($0.count)] }),
            "rebuild": ["staged": .from(staged), "remaining": .from(remaining)],
            "schemaVersion": .from(RecordStore.schemaVersion),
            "patterns": try patternStatus(owner: owner),
        ]
        if let owner, let s = keptCosineScale(owner: owner) {
            result["cosineScale"] = ["mean": .double(s.mean), "spread": .double(s.spread), "records": .from(s.records)]
        }
        return .object(result)
    }
}
