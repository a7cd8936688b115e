import KindredCore
import JSONRPC
import LinearAlgebra
import Storage
import KindredProtocol

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

    /// One record of a put, after its excerpts were matched against the stored text.
    private struct Plan {
        var item: OccurrencesPut.Checked.RecordItem
        var text: String
        var accepted: [(input: OccurrencesPut.Checked.Item, match: ExcerptMatcher.Match)] = []
        var rejected: [JSONValue] = []
        /// Where this record's vectors start in the batch sent to the embedder.
        var firstVector = 0
    }

    /// Every record of the request is read and matched, every accepted description is embedded in
    /// one batch, and every record is written in one transaction. The single-record form fails as a
    /// whole (-32001, -32010); with `items`, a record that is missing or not at the given revision
    /// gets an `error` in its own result and the others are written.
    func putOccurrences(_ req: OccurrencesPut.Checked, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        let owner = req.owner
        var outcomes: [Result<Plan, ResponseError>] = try withReader { store in
            try req.records.map { item -> Result<Plan, ResponseError> in
                guard let stored = try store.get(owner: owner, id: item.recordID) else {
                    return .failure(.notFound("record", id: item.recordID, owner: owner))
                }
                guard stored.record.revision == item.revision else {
                    return .failure(Self.revisionMismatch(recordID: item.recordID, given: item.revision, current: stored.record.revision))
                }
                return .success(Self.match(item, in: stored.record.text))
            }
        }
        if !req.bulk, case .failure(let e) = outcomes[0] { throw e }
        try ctx.checkCancelled()

        // Pattern work waits for the embedder rather than invent evidence: without one, no vectors.
        var descriptions: [String] = []
        for i in outcomes.indices {
            guard case .success(var plan) = outcomes[i] else { continue }
            plan.firstVector = descriptions.count
            descriptions += plan.accepted.map(\.input.description)
            outcomes[i] = .success(plan)
        }
        var vectors: [[Float]?] = Array(repeating: nil, count: descriptions.count)
        var waiting = embedderProblem
        if embedder != nil, !descriptions.isEmpty {
            do {
                let out = try embedTexts(descriptions, as: .document, owner: owner, isCancelled: { ctx.isCancelled }, log: { ctx.log(.warning, $0) })
                if out.count == descriptions.count { vectors = out.map(Vectors.unit) } else { waiting = "the embedder returned \(out.count) vectors for \(descriptions.count) texts" }
            } catch let e as DailyLimitReached {
                waiting = "\(e)"
            } catch {
                try ctx.checkCancelled()
                waiting = "embedder failed: \(error)"
            }
        }
        let version = indexVersion

        let written: [Result<[Int64], ResponseError>] = try withWriter { store in
            try store.database.transaction {
                var results: [Result<[Int64], ResponseError>] = []
                var replaced: Set<Int64> = []
                var inserts: [(at: Int, rowid: Int64, rows: [NewOccurrence])] = []
                for outcome in outcomes {
                    guard case .success(let plan) = outcome else { results.append(.success([])); continue }
                    let item = plan.item
                    // The record may have moved on while the vectors were computed.
                    guard let now = try store.get(owner: owner, id: item.recordID) else {
                        results.append(.failure(.notFound("record", id: item.recordID, owner: owner))); continue
                    }
                    guard now.record.revision == item.revision, now.record.text == plan.text else {
                        results.append(.failure(Self.revisionMismatch(recordID: item.recordID, given: item.revision, current: now.record.revision))); continue
                    }
                    replaced.formUnion(try store.occurrenceIDs(record: now.rowid))
                    let rows = plan.accepted.enumerated().map { k, a in
                        NewOccurrence(source: "client", category: a.input.category, description: a.input.description, excerpt: a.match.text,
                                      start: a.match.start, end: a.match.end, tags: a.input.tags, vector: vectors[plan.firstVector + k])
                    }
                    inserts.append((results.count, now.rowid, rows))
                    results.append(.success([]))
                }
                if !req.bulk, case .failure(let e) = results[0] { throw e }
                try store.deleteOccurrences(Array(replaced).sorted())
                try removeFromPatterns(store, owner: owner, replaced)
                for insert in inserts {
                    let item = req.records[insert.at]
                    results[insert.at] = .success(try store.insertOccurrences(
                        owner: owner, record: insert.rowid, recordID: item.recordID, revision: item.revision, insert.rows, indexVersion: version))
                }
                return results
            }
        }

        var answers: [JSONObject] = []
        var vectorsMissing = false
        for (outcome, write) in zip(outcomes, written) {
            switch (outcome, write) {
            case (.failure(let e), _), (.success, .failure(let e)):
                answers.append(["recordId": .string(req.records[answers.count].recordID), "error": e.json])
            case (.success(let plan), .success(let ids)):
                let mine = vectors[plan.firstVector ..< plan.firstVector + plan.accepted.count]
                let stored = mine.allSatisfy { $0 != nil }
                vectorsMissing = vectorsMissing || !stored
                answers.append(Self.answer(plan, ids: ids, vectorsStored: stored, waiting: waiting))
            }
        }
        guard req.bulk else { return .object(answers[0]) }
        let accepted = answers.reduce(Int64(0)) { n, a in n + (a["accepted"]?.intValue ?? 0) }
        var result: JSONObject = [
            "items": .array(answers.map(JSONValue.object)),
            "written": .from(answers.count(where: { $0["error"] == nil })),
            "failed": .from(answers.count(where: { $0["error"] != nil })),
            "accepted": .int(accepted),
            "vectors": .string(vectorsMissing ? "waiting" : "stored"),
        ]
        if vectorsMissing, let waiting { result["waiting"] = ["reason": .string(waiting)] }
        return .object(result)
    }

    private static func match(_ item: OccurrencesPut.Checked.RecordItem, in text: String) -> Plan {
        var plan = Plan(item: item, text: text)
        for input in item.occurrences {
            if let m = ExcerptMatcher.find(input.excerpt, in: text) {
                plan.accepted.append((input, m))
            } else {
                let reason = input.excerpt.allSatisfy(\.isWhitespace)
                    ? "excerpt is empty"
                    : "excerpt does not occur in the text of record \(item.recordID) at revision \(item.revision)"
                plan.rejected.append(["index": .from(input.index), "field": .string("occurrences[\(input.index)].excerpt"), "reason": .string(reason)])
            }
        }
        return plan
    }

    private static func answer(_ plan: Plan, ids: [Int64], vectorsStored: Bool, waiting: String?) -> JSONObject {
        let list: [JSONValue] = zip(plan.accepted, ids).map { a, id in
            ["index": .from(a.input.index), "occurrenceId": .int(id), "excerpt": .string(a.match.text),
             "start": .from(a.match.start), "end": .from(a.match.end)]
        }
        var result: JSONObject = [
            "recordId": .string(plan.item.recordID), "revision": .int(plan.item.revision), "accepted": .from(plan.accepted.count),
            "occurrences": .array(list), "rejected": .array(plan.rejected),
        ]
        result["vectors"] = .string(vectorsStored ? "stored" : "waiting")
        if !vectorsStored, let waiting { result["waiting"] = ["reason": .string(waiting)] }
        return result
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
