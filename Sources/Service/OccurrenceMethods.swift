import KindredCore
import JSONRPC
import LinearAlgebra
import Storage

/// `occurrences/put`: a client's occurrences of one record revision, replacing that record's
/// occurrences. Excerpts must occur in the text (after folding whitespace, curly quotes and case);
/// the stored excerpt is the exact span of the original text. Unmatched ones are rejected, never repaired.
extension KindredService {
    static func revisionMismatch(recordID: String, given: Int64, current: Int64) -> ResponseError {
        ResponseError(
            code: .revisionConflict,
            message: "revision \(given) is not the current revision (\(current)) of record \(recordID)",
            data: ["field": "revision", "recordId": .string(recordID), "revision": .int(given), "currentRevision": .int(current)])
    }

    func putOccurrences(_ req: OccurrencesPut, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        let owner = req.owner, recordID = req.recordID, revision = req.revision, inputs = req.occurrences

        guard let stored = try withReader({ try $0.get(owner: owner, id: recordID) }) else { throw .notFound("record", id: recordID, owner: owner) }
        guard stored.record.revision == revision else { throw Self.revisionMismatch(recordID: recordID, given: revision, current: stored.record.revision) }

        var accepted: [(input: OccurrencesPut.Item, match: ExcerptMatcher.Match)] = []
        var rejected: [JSONValue] = []
        for input in inputs {
            if let m = ExcerptMatcher.find(input.excerpt, in: stored.record.text) {
                accepted.append((input, m))
            } else {
                let reason = input.excerpt.allSatisfy(\.isWhitespace)
                    ? "excerpt is empty"
                    : "excerpt does not occur in the text of record \(recordID) at revision \(revision)"
                rejected.append(["index": .from(input.index), "field": .string("occurrences[\(input.index)].excerpt"), "reason": .string(reason)])
            }
        }
        try ctx.checkCancelled()
        // Pattern work waits for the embedder rather than invent evidence: without one, no vectors.
        var vectors: [[Float]?] = Array(repeating: nil, count: accepted.count)
        var waiting = embedderProblem
        if let embedder, !accepted.isEmpty {
            do {
                let out = try embedder.embed(accepted.map(\.input.description), isCancelled: { ctx.isCancelled })
                if out.count == accepted.count { vectors = out.map(Vectors.unit) } else { waiting = "the embedder returned \(out.count) vectors for \(accepted.count) texts" }
            } catch {
                try ctx.checkCancelled()
                waiting = "embedder failed: \(error)"
            }
        }
        let version = indexVersion
        let rows = zip(accepted, vectors).map { a, v in
            NewOccurrence(source: "client", category: a.input.category, description: a.input.description, excerpt: a.match.text,
                          start: a.match.start, end: a.match.end, tags: a.input.tags, vector: v)
        }
        let ids: [Int64] = try withWriter { store in
            try store.database.transaction {
                // The record may have moved on while the vectors were computed.
                guard let now = try store.get(owner: owner, id: recordID) else { throw ResponseError.notFound("record", id: recordID, owner: owner) }
                guard now.record.revision == revision, now.record.text == stored.record.text else {
                    throw Self.revisionMismatch(recordID: recordID, given: revision, current: now.record.revision)
                }
                let old = try store.occurrenceIDs(record: now.rowid)
                try store.deleteOccurrences(old)
                try removeFromPatterns(store, owner: owner, Set(old))
                return try store.insertOccurrences(owner: owner, record: now.rowid, recordID: recordID, revision: revision, rows, indexVersion: version)
            }
        }
        let list: [JSONValue] = zip(accepted, ids).map { a, id in
            ["index": .from(a.input.index), "occurrenceId": .int(id), "excerpt": .string(a.match.text),
             "start": .from(a.match.start), "end": .from(a.match.end)]
        }
        var result: JSONObject = [
            "recordId": .string(recordID), "revision": .int(revision), "accepted": .from(accepted.count),
            "occurrences": .array(list), "rejected": .array(rejected),
        ]
        let allVectors = vectors.allSatisfy { $0 != nil }
        result["vectors"] = .string(allVectors ? "stored" : "waiting")
        if !allVectors, let waiting { result["waiting"] = ["reason": .string(waiting)] }
        return .object(result)
    }
}

extension Vectors {
    /// `v` scaled to unit length, or nil when it has no direction (or is not finite).
    static func unit(_ v: [Float]) -> [Float]? {
        var sum: Double = 0
        for x in v { sum += Double(x) * Double(x) }
        guard sum > 0, sum.isFinite else { return nil }
        let inv = Float(1 / sum.squareRoot())
        return v.map { $0 * inv }
    }
}
