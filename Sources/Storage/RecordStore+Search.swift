public import KindredCore

/// Index counts for `index/status`.
public struct StoreStatus: Sendable, Equatable {
    public var records = 0
    public var vectors = 0
    public var vectorsOtherVersions = 0
    public var pendingEmbeddings = 0
    public var searchable = 0
}

extension RecordStore {
    /// Rowids of the owner's searchable records that pass `filters` — one query, used as a scan mask.
    public func filteredRowids(owner: String, filters: SearchFilters) throws -> Set<Int64> {
        let (sql, args) = FilterSQL.predicate(owner: owner, filters: filters)
        return Set(try database.query("SELECT r.rowid FROM records r WHERE \(sql)", args) { $0.int(0) })
    }

    /// BM25 keyword search over the owner's searchable records; best first, score = −bm25.
    public func keywordSearch(owner: String, query: String, filters: SearchFilters, limit: Int) throws -> [(rowid: Int64, score: Double)] {
        guard let match = Self.ftsQuery(query) else { return [] }
        let (sql, args) = FilterSQL.predicate(owner: owner, filters: filters)
        return try database.query("""
            SELECT r.rowid, bm25(records_fts) AS s FROM records_fts JOIN records r ON r.rowid = records_fts.rowid
            WHERE records_fts MATCH ? AND \(sql) ORDER BY s, r.rowid LIMIT ?
            """, [.text(match)] + args + [.from(limit)]) { ($0.int(0), -$0.double(1)) }
    }

    /// A natural-language query as an FTS5 expression: each word quoted, joined by OR.
    static func ftsQuery(_ text: String) -> String? {
        var words: [String] = []
        var current = ""
        for ch in text {
            if ch.isLetter || ch.isNumber { current.append(ch) } else if !current.isEmpty { words.append(current); current = "" }
        }
        if !current.isEmpty { words.append(current) }
        var seen = Set<String>()
        let unique = words.map { $0.lowercased() }.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return nil }
        return unique.map { "\"\($0)\"" }.joined(separator: " OR ")
    }

    public func status(owner: String?, indexVersion: IndexVersion) throws -> StoreStatus {
        let ownerSQL = owner == nil ? "1" : "r.owner = ?"
        let ownerArg: [SQLValue] = owner.map { [.text($0)] } ?? []
        var s = StoreStatus()
        s.records = Int(try database.scalarInt("SELECT count(*) FROM records r WHERE \(ownerSQL)", ownerArg) ?? 0)
        s.searchable = Int(try database.scalarInt("SELECT count(*) FROM records r WHERE \(ownerSQL) AND r.perm_search = 1", ownerArg) ?? 0)
        s.vectors = Int(try database.scalarInt("""
            SELECT count(*) FROM vectors v JOIN records r ON r.rowid = v.record WHERE \(ownerSQL) AND v.index_version = ?
            """, ownerArg + [.text(indexVersion.description)]) ?? 0)
        s.vectorsOtherVersions = Int(try database.scalarInt("""
            SELECT count(*) FROM vectors v JOIN records r ON r.rowid = v.record WHERE \(ownerSQL) AND v.index_version != ?
            """, ownerArg + [.text(indexVersion.description)]) ?? 0)
        s.pendingEmbeddings = s.records - s.vectors
        return s
    }
}
