public import KindredCore

/// Records, their vectors and the keyword index, on one SQLite connection.
/// Every operation is scoped by owner. Not Sendable: one thread at a time.
public final class RecordStore {
    public let database: Database

    /// - Parameter progress: hears how far a long migration is (migration 21 re-indexes the
    ///   records written in other languages than English).
    public init(path: String, progress: (@Sendable (String) -> Void)? = nil) throws {
        database = try Database(path: path)
        try Migrations.migrate(database, progress: progress)
    }

    /// Opens a second, read-only connection to an existing store.
    public init(readerFor path: String) throws {
        database = try Database(path: path, readOnly: true)
    }

    public static var schemaVersion: Int { Migrations.latest }

    public func schemaVersionInFile() throws -> Int {
        Int(try database.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0)
    }

    // MARK: writes

    /// Upserts validated records in one transaction. Revisions only move forward. `absent` names
    /// records the caller found missing earlier in the same transaction (`outcomesWithoutChange`):
    /// they are inserted without being looked up again. Every statement is prepared once per call
    /// and bound field by field.
    public func upsert(owner: String, records: [Record], indexVersion: IndexVersion, absent: Set<String> = []) throws -> [UpsertOutcome] {
        try database.joiningTransaction {
            // Tombstones are rare: an owner with none costs one look-up per call, not one per record.
            let tombstones = try database.scalarInt("SELECT EXISTS (SELECT 1 FROM record_tombstones WHERE owner = ?)", [.text(owner)]) == 1
            let version = indexVersion.description
            var unseen = absent  // an id repeated in `records` is looked up from its second time on
            var out: [UpsertOutcome] = []
            out.reserveCapacity(records.count)
            // Client vectors are written together after the loop (whole blocks at a time); a record
            // named again later in `records` first has what is pending written.
            var vectors = PendingVectors(version: version, source: "client")
            var inserted = NewRecordRows()  // written after the vectors (migration 17)
            try database.reusing(Self.findRecordSQL) { find in
                try database.reusing(Self.insertRecordSQL) { insert in
                    for r in records {
                        if unseen.remove(r.id) == nil {
                            find.reset()
                            try find.bind(1, text: owner)
                            try find.bind(2, text: r.id)
                            if try find.step() {
                                let rowid = find.int(0), rev = find.int(1), text = find.text(2) ?? ""
                                find.reset()
                                if vectors.holds(rowid) { try vectors.flush(database) }
                                if r.revision < rev {
                                    out.append(UpsertOutcome(id: r.id, revision: rev, status: .stale, rowid: rowid))
                                } else if r.revision == rev {
                                    out.append(UpsertOutcome(id: r.id, revision: rev, status: text == r.text ? .unchanged : .conflict, rowid: rowid))
                                } else {
                                    let indexText = IndexText(r.text)
                                    try database.run("""
                                        UPDATE records SET revision = ?, text = ?, kind = ?, date = ?, tags = ?, metadata = ?,
                                            perm_search = ?, perm_patterns = ?, language = ?, keyword_text = ? WHERE rowid = ?
                                        """, Self.columns(r) + [.from(indexText.language?.rawValue), .from(indexText.keywordText), .int(rowid)])
                                    try writeVector(&vectors, rowid: rowid, record: r, isNew: false, textChanged: text != r.text)
                                    out.append(UpsertOutcome(id: r.id, revision: r.revision, status: .updated, rowid: rowid))
                                }
                                continue
                            }
                        }
                        let deleted = tombstones ? try tombstoneRevision(owner: owner, id: r.id) : nil
                        if let deleted, r.revision <= deleted {
                            // Deleted at `deleted`: replaying that revision or an older one must not bring it back.
                            out.append(UpsertOutcome(id: r.id, revision: deleted, status: .stale, rowid: nil, deleted: true))
                            continue
                        }
                        // A tombstone of an older revision goes (none, the common case, costs no statement).
                        if deleted != nil {
                            try database.run("DELETE FROM record_tombstones WHERE owner = ? AND id = ?", [.text(owner), .text(r.id)])
                        }
                        insert.reset()
                        let indexText = IndexText(r.text)
                        try Self.bindColumns(insert, r)
                        try insert.bind(9, text: owner)
                        try insert.bind(10, text: r.id)
                        try insert.bind(11, text: indexText.language?.rawValue)
                        try insert.bind(12, text: indexText.keywordText)
                        try insert.step()
                        let rowid = database.lastInsertRowID
                        try NewRecordRows.index(database, rowid: rowid, text: indexText.indexed(r.text))
                        inserted.add(rowid, vector: !(r.vector?.isEmpty ?? true))
                        try writeVector(&vectors, rowid: rowid, record: r, isNew: true, textChanged: true)
                        out.append(UpsertOutcome(id: r.id, revision: r.revision, status: .created, rowid: rowid))
                    }
                }
            }
            try vectors.flush(database)
            try inserted.write(database)
            return out
        }
    }

    private static let findRecordSQL = "SELECT rowid, revision, text FROM records WHERE owner = ?1 AND id = ?2"
    private static let insertRecordSQL = """
        INSERT INTO records(revision, text, kind, date, tags, metadata, perm_search, perm_patterns, owner, id, language, keyword_text)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    private static func tagsJSON(_ r: Record) -> String { r.tags.isEmpty ? "[]" : JSONWriter.string(.from(r.tags)) }
    private static func metadataJSON(_ r: Record) -> String { r.metadata.isEmpty ? "{}" : JSONWriter.string(.object(r.metadata)) }

    private static func columns(_ r: Record) -> [SQLValue] {
        [.int(r.revision), .text(r.text), .from(r.kind), .from(r.date), .text(tagsJSON(r)), .text(metadataJSON(r)),
         .from(r.permissions.search), .from(r.permissions.patterns)]
    }

    /// Binds parameters 1–8 of an insert or update of `records` (the order of `columns`).
    private static func bindColumns(_ s: Statement, _ r: Record) throws {
        try s.bind(1, int: r.revision)
        try s.bind(2, text: r.text)
        try s.bind(3, text: r.kind)
        try s.bind(4, text: r.date)
        try s.bind(5, text: tagsJSON(r))
        try s.bind(6, text: metadataJSON(r))
        try s.bind(7, int: r.permissions.search ? 1 : 0)
        try s.bind(8, int: r.permissions.patterns ? 1 : 0)
    }

    /// A client vector joins `vectors` (written at its flush); without one, a model vector is
    /// dropped when the text changed and otherwise follows the record's revision.
    private func writeVector(_ vectors: inout PendingVectors, rowid: Int64, record r: Record, isNew: Bool, textChanged: Bool) throws {
        if let v = r.vector {
            vectors.add(rowid: rowid, revision: r.revision, vector: v, isNew: isNew)
        } else if textChanged {
            // A model vector of the old text no longer describes the record: it waits for re-embedding.
            try database.run("DELETE FROM vectors WHERE record = ?", [.int(rowid)])
        } else {
            try database.run("UPDATE vectors SET revision = ? WHERE record = ? AND source = 'model'", [.int(r.revision), .int(rowid)])
        }
    }

    /// Stores model vectors for records still at the revision they were computed for.
    /// Returns the rowids that were written.
    public func storeModelVectors(_ items: [(rowid: Int64, revision: Int64, vector: [Float])], indexVersion: IndexVersion) throws -> [Int64] {
        try database.transaction {
            var vectors = PendingVectors(version: indexVersion.description, source: "model")
            for item in items {
                guard try database.scalarInt("SELECT revision FROM records WHERE rowid = ?", [.int(item.rowid)]) == item.revision else { continue }
                vectors.add(rowid: item.rowid, revision: item.revision, vector: item.vector, isNew: false)
            }
            let written = vectors.rowids
            try vectors.flush(database)
            return written
        }
    }

    /// Deletes records, leaving a tombstone (owner, id, revision, `deletedAt`) for each; returns
    /// (deleted ids with their rowids, missing ids). `deletedAt` is an ISO-8601 UTC timestamp (now
    /// when nil).
    public func delete(owner: String, ids: [String], deletedAt: String? = nil) throws
        -> (deleted: [(id: String, rowid: Int64)], missing: [String]) {
        try database.joiningTransaction {
            var deleted: [(String, Int64)] = []
            var missing: [String] = []
            var seen = Set<String>()
            for id in ids where seen.insert(id).inserted {
                if let row = try database.query("SELECT rowid, revision FROM records WHERE owner = ? AND id = ?", [.text(owner), .text(id)],
                                                row: { ($0.int(0), $0.int(1)) }).first {
                    let rowid = row.0
                    try database.run("DELETE FROM records WHERE rowid = ?", [.int(rowid)])
                    try database.run("""
                        INSERT INTO record_tombstones(owner, id, revision, deleted_at)
                        VALUES (?, ?, ?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))
                        ON CONFLICT(owner, id) DO UPDATE SET revision = excluded.revision, deleted_at = excluded.deleted_at
                        """, [.text(owner), .text(id), .int(row.1), .from(deletedAt)])
                    deleted.append((id, rowid))
                } else {
                    missing.append(id)
                }
            }
            if !deleted.isEmpty { try VectorBlocks.releaseEmptyBlocks(database) }
            return (deleted, missing)
        }
    }

    public func setPermissions(owner: String, id: String, search: Bool?, patterns: Bool?) throws -> StoredRecord? {
        try database.transaction {
            if let search {
                try database.run("UPDATE records SET perm_search = ? WHERE owner = ? AND id = ?", [.from(search), .text(owner), .text(id)])
            }
            if let patterns {
                try database.run("UPDATE records SET perm_patterns = ? WHERE owner = ? AND id = ?", [.from(patterns), .text(owner), .text(id)])
            }
            return try get(owner: owner, id: id)
        }
    }

    // MARK: reads

    static let selectColumns = """
        r.rowid, r.owner, r.id, r.revision, r.text, r.kind, r.date, r.tags, r.metadata, r.perm_search, r.perm_patterns,
        v.index_version, v.source
        """

    static func readRecord(_ s: Statement) -> StoredRecord {
        let tags = (try? JSONParser.parse(s.text(7) ?? "[]"))?.arrayValue?.compactMap(\.stringValue) ?? []
        let metadata = (try? JSONParser.parse(s.text(8) ?? "{}"))?.objectValue ?? [:]
        let record = Record(
            id: s.text(2) ?? "", revision: s.int(3), text: s.text(4) ?? "", kind: s.text(5), date: s.text(6),
            tags: tags, metadata: metadata, permissions: Permissions(search: s.int(9) != 0, patterns: s.int(10) != 0))
        return StoredRecord(rowid: s.int(0), owner: s.text(1) ?? "", record: record, vectorVersion: s.text(11), vectorSource: s.text(12))
    }

    public func get(owner: String, id: String) throws -> StoredRecord? {
        try database.query("""
            SELECT \(Self.selectColumns) FROM records r LEFT JOIN vectors v ON v.record = r.rowid
            WHERE r.owner = ? AND r.id = ?
            """, [.text(owner), .text(id)], row: Self.readRecord).first
    }

    /// Records by rowid (for search results), in no particular order.
    public func records(rowids: [Int64]) throws -> [Int64: StoredRecord] {
        guard !rowids.isEmpty else { return [:] }
        let list = JSONWriter.string(.array(rowids.map { .int($0) }))
        let rows = try database.query("""
            SELECT \(Self.selectColumns) FROM records r LEFT JOIN vectors v ON v.record = r.rowid
            WHERE r.rowid IN (SELECT value FROM json_each(?))
            """, [.text(list)], row: Self.readRecord)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.rowid, $0) })
    }

    /// The stored vector of a record, if it has one of `indexVersion`.
    public func vector(rowid: Int64, indexVersion: IndexVersion) throws -> [Float]? {
        let places = try database.query("SELECT block, slot FROM vectors WHERE record = ? AND index_version = ?",
                                        [.int(rowid), .text(indexVersion.description)]) { VectorBlocks.Place(block: $0.int(0), slot: Int($0.int(1))) }
        var out: [Float]?
        try VectorBlocks.read(database, places: places, width: indexVersion.dimension * 4) { _, bytes in
            var v: [Float] = []
            if VectorBlob.decode(bytes, dimension: indexVersion.dimension, into: &v) { out = v }
        }
        return out
    }

    /// The stored vectors of `rowids` for `indexVersion`, in order: the current one, else one staged by
    /// an unfinished `index/rebuild` for the record's revision; nil for a record with neither.
    public func vectors(rowids: [Int64], indexVersion: IndexVersion) throws -> [[Float]?] {
        let version = SQLValue.text(indexVersion.description)
        let d = indexVersion.dimension
        func decoded(_ s: Statement) -> [Float]? {
            var out: [Float] = []
            out.reserveCapacity(d)
            return s.withBlob(0) { VectorBlob.decode($0, dimension: d, into: &out) } ? out : nil
        }
        // Where each vector is, then the blocks read in block order.
        var places: [VectorBlocks.Place] = []
        var asked: [Int] = []
        try database.reusing("SELECT block, slot FROM vectors WHERE record = ?1 AND index_version = ?2") { s in
            for (i, rowid) in rowids.enumerated() {
                try s.bind([.int(rowid), version])
                if try s.step() {
                    places.append(VectorBlocks.Place(block: s.int(0), slot: Int(s.int(1))))
                    asked.append(i)
                }
            }
        }
        var out = [[Float]?](repeating: nil, count: rowids.count)
        try VectorBlocks.read(database, places: places, width: d * 4) { n, bytes in
            var v: [Float] = []
            v.reserveCapacity(d)
            if VectorBlob.decode(bytes, dimension: d, into: &v) { out[asked[n]] = v }
        }
        guard out.contains(where: { $0 == nil }) else { return out }
        try database.reusing("""
            SELECT n.data FROM vectors_next n JOIN records r ON r.rowid = n.record
            WHERE n.record = ?1 AND n.index_version = ?2 AND n.revision = r.revision
            """) { s in
            for (i, rowid) in rowids.enumerated() where out[i] == nil {
                try s.bind([.int(rowid), version])
                if try s.step() { out[i] = decoded(s) }
            }
        }
        return out
    }

    /// Streams every searchable vector of `indexVersion` (those staged by an unfinished
    /// `index/rebuild` included): (rowid, owner, vector bytes), in no
    /// particular order (sorting 1.5 KB rows would cost more than the scan).
    public func forEachSearchableVector(indexVersion: IndexVersion, _ body: (Int64, String, UnsafeRawBufferPointer) throws -> Void) throws {
        // Every place first, then each block read once, in block order.
        var rowids: [Int64] = []
        var owners: [String] = []
        var places: [VectorBlocks.Place] = []
        var ownerIDs: [String: String] = [:]  // one String per owner, not one per row
        try database.reusing("""
            SELECT r.rowid, r.owner, v.block, v.slot FROM vectors v JOIN records r ON r.rowid = v.record
            WHERE v.index_version = ?1 AND r.perm_search = 1
            """) { s in
            try s.bind([.text(indexVersion.description)])
            while try s.step() {
                let name = s.text(1) ?? ""
                if ownerIDs[name] == nil { ownerIDs[name] = name }
                rowids.append(s.int(0))
                owners.append(ownerIDs[name]!)
                places.append(VectorBlocks.Place(block: s.int(2), slot: Int(s.int(3))))
            }
        }
        try VectorBlocks.readBlocks(database, places: places, width: indexVersion.dimension * 4) { n, bytes in
            try body(rowids[n], owners[n], bytes)
        }
        let s = try database.prepare("""
            SELECT r.rowid, r.owner, n.data FROM vectors_next n JOIN records r ON r.rowid = n.record
            WHERE n.index_version = ?1 AND n.revision = r.revision AND r.perm_search = 1
                AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.record = n.record AND v.index_version = ?1)
            """)
        try s.bind([.text(indexVersion.description)])
        while try s.step() {
            let owner = s.text(1) ?? ""
            try s.withBlob(2) { try body(s.int(0), owner, $0) }
        }
    }

    /// Records with no vector of `indexVersion` (waiting for embedding), oldest first.
    public func pendingEmbeddings(indexVersion: IndexVersion, limit: Int, after: Int64 = 0) throws -> [EmbeddingWork] {
        try database.query("""
            SELECT r.rowid, r.owner, r.revision, r.text FROM \(Self.waitingCandidates) w
            CROSS JOIN records r ON r.rowid = w.id LEFT JOIN vectors v ON v.record = r.rowid
            WHERE \(Self.waitingForVectorNumbered) AND r.rowid > ?2 ORDER BY r.rowid LIMIT ?3
            """, [.text(indexVersion.description), .int(after), .from(limit)]) { ($0.int(0), $0.text(1) ?? "", $0.int(2), $0.text(3) ?? "") }
    }

    /// How many records wait for a vector of `indexVersion` (what `pendingEmbeddings` would give).
    public func pendingEmbeddingCount(indexVersion: IndexVersion) throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM \(Self.waitingCandidates) w
            CROSS JOIN records r ON r.rowid = w.id LEFT JOIN vectors v ON v.record = r.rowid
            WHERE \(Self.waitingForVectorNumbered)
            """, [.text(indexVersion.description)]) ?? 0)
    }

    /// Records that may wait for a vector of index version `?1`: those without a vector row
    /// (trigger-kept table) and those whose vector is of another version (`vectors_by_version`).
    static let waitingCandidates = """
        (SELECT record AS id FROM records_without_vectors
         UNION SELECT record FROM vectors WHERE index_version < ?1
         UNION SELECT record FROM vectors WHERE index_version > ?1)
        """
    static let waitingForVectorNumbered = "(v.record IS NULL OR v.index_version != ?1)"

    /// Records whose vector is not a client vector of `indexVersion` (what a re-index recomputes).
    public func reembedCandidates(indexVersion: IndexVersion, limit: Int, after: Int64) throws -> [EmbeddingWork] {
        try embeddingWork(Self.notClientVector, indexVersion: indexVersion, limit: limit, after: after)
    }

    /// How many records a re-index would recompute.
    public func reembedCount(indexVersion: IndexVersion) throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM records r LEFT JOIN vectors v ON v.record = r.rowid WHERE \(Self.notClientVector)
            """, [.text(indexVersion.description)]) ?? 0)
    }

    /// Work for the embedder: a record's text at the revision the vector will be stored for.
    public typealias EmbeddingWork = (rowid: Int64, owner: String, revision: Int64, text: String)

    /// Predicates over `records r LEFT JOIN vectors v ON v.record = r.rowid`; `?` is the index version.
    static let notClientVector = "(v.record IS NULL OR v.source = 'model' OR v.index_version != ?)"

    private func embeddingWork(_ predicate: String, indexVersion: IndexVersion, limit: Int, after: Int64) throws -> [EmbeddingWork] {
        try database.query("""
            SELECT r.rowid, r.owner, r.revision, r.text FROM records r LEFT JOIN vectors v ON v.record = r.rowid
            WHERE \(predicate) AND r.rowid > ? ORDER BY r.rowid LIMIT ?
            """, [.text(indexVersion.description), .int(after), .from(limit)]) { ($0.int(0), $0.text(1) ?? "", $0.int(2), $0.text(3) ?? "") }
    }

    /// Owners of those rowids whose records are searchable.
    public func searchableOwners(rowids: [Int64]) throws -> [Int64: String] {
        guard !rowids.isEmpty else { return [:] }
        let list = JSONWriter.string(.array(rowids.map { .int($0) }))
        let rows = try database.query(
            "SELECT rowid, owner FROM records WHERE perm_search = 1 AND rowid IN (SELECT value FROM json_each(?))",
            [.text(list)]) { ($0.int(0), $0.text(1) ?? "") }
        return Dictionary(uniqueKeysWithValues: rows)
    }

    /// Drops model vectors not of `indexVersion` so they are re-embedded; returns how many.
    public func dropModelVectors(except indexVersion: IndexVersion) throws -> Int {
        try database.transaction {
            try database.run("DELETE FROM vectors WHERE source = 'model' AND index_version != ?", [.text(indexVersion.description)])
            let n = database.changes
            try VectorBlocks.releaseEmptyBlocks(database)
            return n
        }
    }

    public func dropAllModelVectors() throws -> Int {
        try database.transaction {
            try database.run("DELETE FROM vectors WHERE source = 'model'")
            let n = database.changes
            try VectorBlocks.releaseEmptyBlocks(database)
            return n
        }
    }
}
