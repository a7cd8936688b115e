public import KindredCore

/// `index/rebuild` to a new index version: vectors of the new version are staged in `vectors_next`
/// beside the vectors that serve today, batch by batch (a crash or a cancel keeps what was staged,
/// so the next rebuild resumes), and only when every record has one are they moved in, in one
/// transaction, and the rows of other versions deleted.
extension RecordStore {
    /// Records a rebuild to `indexVersion` still has to embed, oldest first: with `everything`,
    /// every record whose vector is not a client vector of that version (the local model re-embeds
    /// all); otherwise only those without a vector of that version (each remote call is paid for).
    /// Records already staged at their current revision are done.
    public func rebuildCandidates(indexVersion: IndexVersion, everything: Bool, limit: Int, after: Int64) throws -> [EmbeddingWork] {
        try database.query("""
            SELECT r.rowid, r.owner, r.revision, r.text FROM records r
            LEFT JOIN vectors v ON v.record = r.rowid LEFT JOIN vectors_next n ON n.record = r.rowid
            WHERE \(Self.rebuildPredicate(everything)) AND r.rowid > ?2 ORDER BY r.rowid LIMIT ?3
            """, [.text(indexVersion.description), .int(after), .from(limit)]) { ($0.int(0), $0.text(1) ?? "", $0.int(2), $0.text(3) ?? "") }
    }

    public func rebuildRemaining(indexVersion: IndexVersion, everything: Bool) throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM records r LEFT JOIN vectors v ON v.record = r.rowid LEFT JOIN vectors_next n ON n.record = r.rowid
            WHERE \(Self.rebuildPredicate(everything))
            """, [.text(indexVersion.description)]) ?? 0)
    }

    static func rebuildPredicate(_ everything: Bool) -> String {
        let needs = everything ? "(v.record IS NULL OR v.source = 'model' OR v.index_version != ?1)" : "(v.record IS NULL OR v.index_version != ?1)"
        return "\(needs) AND NOT (n.record IS NOT NULL AND n.index_version = ?1 AND n.revision = r.revision)"
    }

    /// Stages vectors of `indexVersion` for records still at the revision they were computed for;
    /// returns the rowids staged.
    public func stageVectors(_ items: [(rowid: Int64, revision: Int64, vector: [Float])], indexVersion: IndexVersion) throws -> [Int64] {
        try database.transaction {
            var staged: [Int64] = []
            for item in items {
                guard try database.scalarInt("SELECT revision FROM records WHERE rowid = ?", [.int(item.rowid)]) == item.revision else { continue }
                try database.run("""
                    INSERT INTO vectors_next(record, index_version, revision, data) VALUES (?, ?, ?, ?)
                    ON CONFLICT(record) DO UPDATE SET index_version = excluded.index_version, revision = excluded.revision, data = excluded.data
                    """, [.int(item.rowid), .text(indexVersion.description), .int(item.revision), .blob(VectorBlob.encode(item.vector))])
                staged.append(item.rowid)
            }
            return staged
        }
    }

    /// Staged vectors of `indexVersion`, still current.
    public func stagedCount(indexVersion: IndexVersion) throws -> Int {
        Int(try database.scalarInt("""
            SELECT count(*) FROM vectors_next n JOIN records r ON r.rowid = n.record WHERE n.index_version = ? AND n.revision = r.revision
            """, [.text(indexVersion.description)]) ?? 0)
    }

    /// Moves the staged vectors of `indexVersion` in (a client vector of that version is kept),
    /// empties the staging table and deletes every vector of another version. One transaction.
    /// Returns how many were moved in and how many rows of other versions are gone (replaced or deleted).
    public func completeRebuild(indexVersion: IndexVersion) throws -> (moved: Int, deleted: Int) {
        try database.transaction {
            let version = indexVersion.description
            let old = Int(try database.scalarInt("SELECT count(*) FROM vectors WHERE index_version != ?", [.text(version)]) ?? 0)
            // Staged vectors go into blocks a bounded number at a time, in record order.
            var moved = 0
            var after: Int64 = 0
            while true {
                var vectors = PendingVectors(version: version, source: "model")
                var last: Int64?
                try database.reusing("""
                    SELECT n.record, n.revision, n.data FROM vectors_next n JOIN records r ON r.rowid = n.record
                    WHERE n.index_version = ?1 AND n.revision = r.revision AND n.record > ?2
                        AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.record = n.record AND v.source = 'client' AND v.index_version = ?1)
                    ORDER BY n.record LIMIT 16384
                    """) { s in
                    try s.bind([.text(version), .int(after)])
                    while try s.step() {
                        last = s.int(0)
                        var v: [Float] = []
                        guard s.withBlob(2, { VectorBlob.decode($0, dimension: indexVersion.dimension, into: &v) }) else { continue }
                        vectors.add(rowid: s.int(0), revision: s.int(1), vector: v, isNew: false)
                    }
                }
                guard let last else { break }
                after = last
                moved += vectors.rowids.count
                try vectors.flush(database)
            }
            try database.run("DELETE FROM vectors_next")
            try database.run("DELETE FROM vectors WHERE index_version != ?", [.text(version)])
            try VectorBlocks.releaseEmptyBlocks(database)
            return (moved, old)
        }
    }

    /// Gives the space of deleted rows back to the file system (outside any transaction).
    public func reclaimSpace() throws { try database.execute("VACUUM") }

    /// Vectors per index version and source (what `index/status` shows), optionally for one owner.
    /// How many vector rows are of `indexVersion` (every owner, either source).
    public func vectorCount(indexVersion: IndexVersion) throws -> Int {
        Int(try database.scalarInt("SELECT count(*) FROM vectors WHERE index_version = ?1", [.text(indexVersion.description)]) ?? 0)
    }

    public func vectorVersions(owner: String?) throws -> [(version: String, source: String, count: Int)] {
        try database.query("""
            SELECT v.index_version, v.source, count(*) FROM vectors v JOIN records r ON r.rowid = v.record
            WHERE ?1 IS NULL OR r.owner = ?1 GROUP BY v.index_version, v.source ORDER BY v.index_version, v.source
            """, [owner.map { .text($0) } ?? .null]) { ($0.text(0) ?? "", $0.text(1) ?? "", Int($0.int(2))) }
    }
}
