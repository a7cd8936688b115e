public import KindredCore

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}

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
    /// A record matches when it has at least one of the terms (after stemming, see migration 8);
    /// more matched terms and rarer terms rank higher. No terms, no matches.
    /// The terms are read in `terms.language` (`KeywordText.queryTerm`: Snowball stems in a stemmed language).
    public func keywordSearch(owner: String, terms: KeywordTerms, filters: SearchFilters, limit: Int) throws -> [(rowid: Int64, score: Double)] {
        guard let match = Self.ftsQuery(terms.terms.map { KeywordText.queryTerm($0, language: terms.language) }) else { return [] }
        let (sql, args) = FilterSQL.predicate(owner: owner, filters: filters)
        return try database.query("""
            SELECT r.rowid, bm25(records_fts) AS s FROM records_fts JOIN records r ON r.rowid = records_fts.rowid
            WHERE records_fts MATCH ? AND \(sql) ORDER BY s, r.rowid LIMIT ?
            """, [.text(match)] + args + [.from(limit)]) { ($0.int(0), -$0.double(1)) }
    }

    /// Every record's rowid, owner, index text (`keyword_text`, else its text; migration 21) and
    /// search permission, in rowid order: what the keyword index holds (it indexes every record with text; search permission only hides a record from
    /// results).
    public func forEachKeywordRow(_ body: (Int64, String, String, Bool) throws -> Void) throws {
        let s = try database.prepare("SELECT rowid, owner, coalesce(keyword_text, text), perm_search FROM records WHERE text != '' ORDER BY rowid")
        while try s.step() { try body(s.int(0), s.text(1) ?? "", s.text(2) ?? "", s.int(3) != 0) }
    }

    /// `keywordSearch` over the informative terms of a natural-language query.
    public func keywordSearch(owner: String, query: String, filters: SearchFilters, limit: Int) throws -> [(rowid: Int64, score: Double)] {
        try keywordSearch(owner: owner, terms: KeywordTerms(query: query), filters: filters, limit: limit)
    }

    /// The terms as an FTS5 expression: each one a quoted string (so nothing in the user's text is
    /// read as FTS5 syntax), joined by OR; nil when there are none.
    static func ftsQuery(_ terms: [String]) -> String? {
        guard !terms.isEmpty else { return nil }
        return terms.map { "\"" + $0.replacingAll("\"", with: "\"\"") + "\"" }.joined(separator: " OR ")
    }

    /// How many of the owner's records are written in each language (records whose language is
    /// not known are not counted).
    public func languageCounts(owner: String) throws -> [TextLanguage: Int] {
        var out: [TextLanguage: Int] = [:]
        for (code, n) in try database.query(
            "SELECT language, count(*) FROM records WHERE owner = ? AND language IS NOT NULL GROUP BY language", [.text(owner)],
            row: { ($0.text(0) ?? "", Int($0.int(1))) }) {
            out[TextLanguage(rawValue: code)] = n
        }
        return out
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
