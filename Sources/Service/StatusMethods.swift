import KindredCore
import JSONRPC
import Storage

extension KindredService {
    func status(_ req: IndexStatus) throws(ResponseError) -> JSONValue {
        let owner = req.owner
        let version = indexVersion
        let s = try withReader { try $0.status(owner: owner, indexVersion: version) }
        let indexed = readIndex { idx in owner.map { idx.count(owner: $0) } ?? idx.count }
        var embedderInfo: JSONObject = ["available": .bool(embedder != nil), "provider": .string(config.string("embedder.provider"))]
        if let embedderProblem { embedderInfo["problem"] = .string(embedderProblem) }
        return [
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
            "schemaVersion": .from(RecordStore.schemaVersion),
            "patterns": try patternStatus(owner: owner),
        ]
    }
}
