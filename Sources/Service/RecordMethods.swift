import KindredCore
import JSONRPC
import Storage
import VectorIndex
import KindredProtocol

extension KindredService {
    func upsert(_ req: RecordsUpsert, _ ctx: RequestContext) throws(ResponseError) -> RecordsUpsert.Result {
        let records = req.records.map(\.record)
        let owner = req.owner
        let outcomes = try apply(owner: owner, records: records)
        // Only written records without a client vector give the embedder work (and wake it: its look
        // for work visits every record).
        let written = Set(outcomes.filter { $0.status == .created || $0.status == .updated }.map(\.id))
        if records.contains(where: { $0.vector == nil && written.contains($0.id) }) {
            reportEmbeddingProgress(ctx, records: records.count)
            embeddingWorkDidArrive()
        }
        let result = RecordsUpsert.Result(results: outcomes.map { o in
            .init(id: o.id, revision: Int(o.revision), status: o.status.rawValue, deleted: o.deleted ? true : nil)
        })
        if req.waitForIndex == true {
            // Answered once every searchable record of the request is in the semantic index (or the
            // timeout passed); the write is committed either way.
            let ids = records.filter(\.permissions.search).map(\.id)
            let timeout = settings.records.waitForIndexTimeout
            ctx.answerLater { [self] _ in
                var later = result
                later.indexed = waitUntilIndexed(owner: owner, ids: ids, timeout: timeout, ctx)
                return try ResultEncoder.json(later)
            }
        }
        return result
    }

    /// Writes validated records and brings the vector index in step with them. Records that would
    /// change nothing (stale, unchanged, conflict) are answered first, from a comparison inside
    /// SQLite, and never reach the pattern follow-up or the index: re-sending a record costs a look-up.
    func apply(owner: String, records: [Record]) throws(ResponseError) -> [UpsertOutcome] {
        let version = indexVersion
        // The store write and the index update happen under the writer lock together, so background
        // embedding cannot interleave between them (lock order: writer, then index).
        return try withWriter { store in
            typealias Placement = (rowid: Int64, vector: [Float]?)
            let (outcomes, placements) = try store.database.transaction { () throws -> ([UpsertOutcome], [Placement]) in
                var absent = Set<String>()
                let settled = try store.outcomesWithoutChange(owner: owner, records: records, absent: &absent)
                // The common case, nothing settled: every record is written, in order.
                let writes = settled.isEmpty ? records : records.filter { settled[$0.id] == nil }
                guard !writes.isEmpty else { return (records.compactMap { settled[$0.id] }, []) }
                let (written, placements) = try write(store, owner: owner, records: writes, indexVersion: version, absent: absent)
                if settled.isEmpty { return (written, placements) }
                let byID = Dictionary(uniqueKeysWithValues: written.map { ($0.id, $0) })
                return (records.compactMap { settled[$0.id] ?? byID[$0.id] }, placements)
            }
            writeIndex { index in
                // Rows new to the index are coded in one pass (`load`), the others one by one.
                var fresh: [Int64] = []
                var freshVectors: [Float] = []
                for (rowid, vector) in placements {
                    guard let vector else { index.remove(rowid: rowid); continue }
                    if index.contains(rowid: rowid) {
                        index.put(owner: owner, rowid: rowid, vector: vector)
                    } else {
                        if fresh.isEmpty { freshVectors.reserveCapacity(placements.count * vector.count) }
                        fresh.append(rowid)
                        freshVectors.append(contentsOf: vector)
                    }
                }
                if !fresh.isEmpty { index.load(owner: owner, rowids: fresh, vectors: freshVectors) }
            }
            ownerLanguages.didWrite(owner: owner, records: outcomes.count)
            if keywords.isReady {
                // `outcomes` holds one outcome per record, in the records' order (ids are unique).
                keywords.didWrite(owner: owner, zip(records, outcomes).compactMap { r, o in
                    guard o.status == .created || o.status == .updated, let rowid = o.rowid else { return nil }
                    return (rowid, r.text, r.permissions.search)
                })
            }
            return outcomes
        }
    }

    /// The store write of records that change something, with its pattern follow-up; returns the
    /// outcomes and what the index should hold for each changed record: its client vector, or a
    /// model vector that survived because the text did not change, or nothing (waiting for
    /// embedding, or not searchable).
    /// `absent`: ids found missing earlier in the same transaction (new records, which have no
    /// occurrences yet and need no second look-up).
    private func write(_ store: RecordStore, owner: String, records: [Record], indexVersion version: IndexVersion, absent: Set<String>) throws
        -> ([UpsertOutcome], [(rowid: Int64, vector: [Float]?)])
    {
        let existing = records.lazy.map(\.id).filter { !absent.contains($0) }
        let outcomes = try withPatternInvalidation(store, owner: owner, recordIDs: Array(existing)) {
            try store.upsert(owner: owner, records: records, indexVersion: version, absent: absent)
        }
        // `store.upsert` answers one outcome per record, in order.
        let placements: [(rowid: Int64, vector: [Float]?)] = try zip(records, outcomes).compactMap { r, o in
            guard o.status == .created || o.status == .updated, let rowid = o.rowid else { return nil }
            guard r.permissions.search else { return (rowid, nil) }
            if let v = r.vector { return (rowid, v) }
            return (rowid, o.status == .updated ? try store.vector(rowid: rowid, indexVersion: version) : nil)
        }
        return (outcomes, placements)
    }

    func delete(_ req: RecordsDelete) throws(ResponseError) -> RecordsDelete.Result {
        let owner = req.owner, ids = req.ids
        let result = try withWriter { store in
            let r = try withPatternInvalidation(store, owner: owner, recordIDs: ids) { try store.delete(owner: owner, ids: ids) }
            writeIndex { index in for d in r.deleted { index.remove(rowid: d.rowid) } }
            keywords.didDelete(rowids: r.deleted.map(\.rowid))
            ownerLanguages.didWrite(owner: owner, records: r.deleted.count)
            return r
        }
        return RecordsDelete.Result(deleted: result.deleted.map(\.id), missing: result.missing)
    }

    func get(_ req: RecordsGet) throws(ResponseError) -> RecordState {
        let owner = req.owner, id = req.id
        let version = indexVersion
        let (stored, tombstone, spans) = try withReader { store in
            let stored = try store.get(owner: owner, id: id)
            let spans = try stored.flatMap { s in
                req.passages == true ? try store.passageVectorSpans(record: s.rowid, revision: s.record.revision, indexVersion: version) : nil
            }
            return (stored, stored == nil ? try store.tombstone(owner: owner, id: id) : nil, spans)
        }
        if let tombstone { throw .deleted(tombstone) }
        guard let stored else { throw .notFound("record", id: id, owner: owner) }
        var result = recordResult(stored)
        guard let spans else { return result }
        // With `passages: true`: besides the passage count, `passageList` lists them, each with its
        // index, offsets (Unicode scalars), text and whether it has a vector of the current index
        // version (its own, as a pattern occurrence, or the record's when the record is one passage).
        let parts = Passages.split(stored.record.text, maxScalars: settings.passages.maxChars)
        let recordVector = result.vector != nil
        result.passageList = parts.enumerated().map { i, p in
            .init(index: i, start: p.start, end: p.end, text: p.text,
                  vector: spans.contains([p.start, p.end]) || (parts.count == 1 && recordVector))
        }
        return result
    }

    func recordResult(_ stored: StoredRecord) -> RecordState {
        let indexed = readIndex { $0.contains(rowid: stored.rowid) }
        let current = stored.vectorVersion == indexVersion.description
        let r = stored.record
        return RecordState(
            record: .init(id: r.id, revision: Int(r.revision), text: r.text, kind: r.kind, date: r.date, tags: r.tags, metadata: Metadata(r.metadata),
                          permissions: .init(search: r.permissions.search, patterns: r.permissions.patterns)),
            indexed: indexed, vector: current ? stored.vectorSource ?? "model" : nil, indexVersion: stored.vectorVersion,
            passages: Passages.split(r.text, maxScalars: settings.passages.maxChars).count)
    }

    func setPermissions(_ req: RecordsSetPermissions) throws(ResponseError) -> RecordState {
        let owner = req.owner, id = req.id, search = req.permissions.search, patterns = req.permissions.patterns
        let version = indexVersion
        let stored: StoredRecord? = try withWriter { store in
            guard let s = try withPatternInvalidation(store, owner: owner, recordIDs: [id], {
                try store.setPermissions(owner: owner, id: id, search: search, patterns: patterns)
            }) else { return nil }
            let vector = try store.vector(rowid: s.rowid, indexVersion: version)
            writeIndex { index in
                if s.record.permissions.search, let vector { index.put(owner: owner, rowid: s.rowid, vector: vector) } else { index.remove(rowid: s.rowid) }
            }
            keywords.didSetSearch(rowid: s.rowid, s.record.permissions.search)
            return s
        }
        guard let stored else { throw .notFound("record", id: id, owner: owner) }
        return recordResult(stored)
    }
}
