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
        var item: OccurrencesPut.Item
        var text: String
        /// Each accepted occurrence with its position in the record's list.
        var accepted: [(index: Int, input: OccurrenceInput, match: ExcerptMatcher.Match)] = []
        var rejected: [OccurrencesPut.Result.Rejected] = []
        /// Where this record's vectors start in the batch sent to the embedder.
        var firstVector = 0
    }

    /// Every record of the request is read and matched, every accepted description is embedded in
    /// one batch, and every record is written in one transaction. The single-record form fails as a
    /// whole (-32001, -32010); with `items`, a record that is missing or not at the given revision
    /// gets an `error` in its own result and the others are written.
    func putOccurrences(_ req: OccurrencesPut, _ ctx: RequestContext) throws(ResponseError) -> OccurrencesPut.Result {
        let owner = req.owner, puts = req.puts, bulk = req.items != nil
        var outcomes: [Result<Plan, ResponseError>] = try withReader { store in
            try puts.map { item -> Result<Plan, ResponseError> in
                guard let stored = try store.get(owner: owner, id: item.recordId) else {
                    return .failure(.notFound("record", id: item.recordId, owner: owner))
                }
                guard stored.record.revision == item.revision else {
                    return .failure(Self.revisionMismatch(recordID: item.recordId, given: Int64(item.revision), current: stored.record.revision))
                }
                return .success(Self.match(item, in: stored.record.text))
            }
        }
        if !bulk, case .failure(let e) = outcomes[0] { throw e }
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
                    guard let now = try store.get(owner: owner, id: item.recordId) else {
                        results.append(.failure(.notFound("record", id: item.recordId, owner: owner))); continue
                    }
                    guard now.record.revision == item.revision, now.record.text == plan.text else {
                        results.append(.failure(Self.revisionMismatch(recordID: item.recordId, given: Int64(item.revision), current: now.record.revision))); continue
                    }
                    replaced.formUnion(try store.occurrenceIDs(record: now.rowid))
                    let rows = plan.accepted.enumerated().map { k, a in
                        NewOccurrence(source: "client", category: a.input.category, description: a.input.description, excerpt: a.match.text,
                                      start: a.match.start, end: a.match.end, tags: a.input.tags ?? [], vector: vectors[plan.firstVector + k])
                    }
                    inserts.append((results.count, now.rowid, rows))
                    results.append(.success([]))
                }
                if !bulk, case .failure(let e) = results[0] { throw e }
                try store.deleteOccurrences(Array(replaced).sorted())
                try removeFromPatterns(store, owner: owner, replaced)
                for insert in inserts {
                    let item = puts[insert.at]
                    results[insert.at] = .success(try store.insertOccurrences(
                        owner: owner, record: insert.rowid, recordID: item.recordId, revision: Int64(item.revision), insert.rows, indexVersion: version))
                }
                return results
            }
        }

        var answers: [OccurrencesPut.Result.ItemResult] = []
        var vectorsMissing = false
        let reason = waiting.map { OccurrencesPut.Result.Waiting(reason: $0) }
        for (outcome, write) in zip(outcomes, written) {
            switch (outcome, write) {
            case (.failure(let e), _), (.success, .failure(let e)):
                answers.append(.init(recordId: puts[answers.count].recordId,
                                     error: .init(code: Int(e.code.rawValue), message: e.message, data: e.data.map(KindredJSON.init))))
            case (.success(let plan), .success(let ids)):
                let stored = vectors[plan.firstVector ..< plan.firstVector + plan.accepted.count].allSatisfy { $0 != nil }
                vectorsMissing = vectorsMissing || !stored
                answers.append(Self.answer(plan, ids: ids, vectorsStored: stored, waiting: reason))
            }
        }
        guard bulk else {
            let a = answers[0]
            return OccurrencesPut.Result(recordId: a.recordId, revision: a.revision, accepted: a.accepted ?? 0, occurrences: a.occurrences,
                                         rejected: a.rejected, vectors: a.vectors ?? "stored", waiting: a.waiting)
        }
        let failed = answers.count { $0.error != nil }
        let accepted = answers.reduce(0) { $0 + ($1.accepted ?? 0) }
        return OccurrencesPut.Result(items: answers, written: answers.count - failed, failed: failed, accepted: accepted,
                                     vectors: vectorsMissing ? "waiting" : "stored", waiting: vectorsMissing ? reason : nil)
    }

    private static func match(_ item: OccurrencesPut.Item, in text: String) -> Plan {
        var plan = Plan(item: item, text: text)
        for (index, input) in item.occurrences.enumerated() {
            if let m = ExcerptMatcher.find(input.excerpt, in: text) {
                plan.accepted.append((index, input, m))
            } else {
                let reason = input.excerpt.allSatisfy(\.isWhitespace)
                    ? "excerpt is empty"
                    : "excerpt does not occur in the text of record \(item.recordId) at revision \(item.revision)"
                plan.rejected.append(.init(index: index, field: "occurrences[\(index)].excerpt", reason: reason))
            }
        }
        return plan
    }

    /// One record's answer; `waiting` says why its vectors wait, when they do.
    private static func answer(_ plan: Plan, ids: [Int64], vectorsStored: Bool, waiting: OccurrencesPut.Result.Waiting?) -> OccurrencesPut.Result.ItemResult {
        let list = zip(plan.accepted, ids).map { a, id in
            OccurrencesPut.Result.Accepted(index: a.index, occurrenceId: Int(id), excerpt: a.match.text, start: a.match.start, end: a.match.end)
        }
        return .init(recordId: plan.item.recordId, revision: plan.item.revision, accepted: plan.accepted.count, occurrences: list,
                     rejected: plan.rejected, vectors: vectorsStored ? "stored" : "waiting", waiting: vectorsStored ? nil : waiting)
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
