public import KindredCore

/// What search answers cannot show yet: searchable records still waiting for a vector.
extension RecordStore {
    /// How many of `owner`'s searchable records have no vector of `indexVersion` yet. Starts from the
    /// trigger-kept candidates (records without a vector row, vectors of other versions), so it does
    /// not visit the owner's indexed records.
    public func pendingSearchableCount(owner: String, indexVersion: IndexVersion) throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM \(Self.waitingCandidates) w
            CROSS JOIN records r ON r.rowid = w.id LEFT JOIN vectors v ON v.record = r.rowid
            WHERE \(Self.waitingForVectorNumbered) AND r.owner = ?2 AND r.perm_search = 1
            """, [.text(indexVersion.description), .text(owner)]) ?? 0)
    }

    /// How many of `owner`'s searchable records hold a vector of another index version than
    /// `indexVersion` (those a remote provider leaves to `index/rebuild`), from the same candidates.
    public func searchableOfOtherVersions(owner: String, indexVersion: IndexVersion) throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM \(Self.waitingCandidates) w
            CROSS JOIN records r ON r.rowid = w.id JOIN vectors v ON v.record = r.rowid
            WHERE v.index_version != ?1 AND r.owner = ?2 AND r.perm_search = 1
            """, [.text(indexVersion.description), .text(owner)]) ?? 0)
    }

    /// Which of `owner`'s records named in `ids` are searchable and still wait for a vector of
    /// `indexVersion` (what `records/upsert` with `waitForIndex` waits for).
    public func pendingSearchable(owner: String, ids: [String], indexVersion: IndexVersion) throws -> [String] {
        var waiting: [String] = []
        for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            waiting += try database.query("""
                SELECT r.id FROM records r LEFT JOIN vectors v ON v.record = r.rowid
                WHERE r.owner = ?1 AND r.perm_search = 1 AND (v.record IS NULL OR v.index_version != ?2) AND r.id IN (\(marks))
                """, [.text(owner), .text(indexVersion.description)] + chunk.map { .text($0) }) { $0.text(0) ?? "" }
        }
        return waiting
    }
}

extension RecordStore {
    /// Records with no vector row at all (new, or edited since their vector was made), oldest first:
    /// what a remote provider embeds on its own. Records holding a vector of another index version
    /// are left to `index/rebuild`.
    public func recordsWithoutVectors(limit: Int, after: Int64 = 0) throws -> [EmbeddingWork] {
        try database.query("""
            SELECT r.rowid, r.owner, r.revision, r.text FROM records_without_vectors w
            CROSS JOIN records r ON r.rowid = w.record LEFT JOIN vectors v ON v.record = r.rowid
            WHERE v.record IS NULL AND r.rowid > ? ORDER BY r.rowid LIMIT ?
            """, [.int(after), .from(limit)]) { ($0.int(0), $0.text(1) ?? "", $0.int(2), $0.text(3) ?? "") }
    }

    /// How many records have no vector row at all.
    public func recordsWithoutVectorsCount() throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM records_without_vectors w LEFT JOIN vectors v ON v.record = w.record
            WHERE v.record IS NULL AND EXISTS (SELECT 1 FROM records r WHERE r.rowid = w.record)
            """) ?? 0)
    }
}
