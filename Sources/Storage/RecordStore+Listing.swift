public import KindredCore

extension RecordStore {
    /// Every record of `owner` whose metadata holds `key` (whatever its value), in id order: what a
    /// client that keeps its records in step with a source of its own (the notes of `kindred lsp`)
    /// compares its source with. The text comes along so an unchanged record needs no write.
    public func records(owner: String, withMetadataKey key: String) throws -> [Record] {
        try database.query("""
            SELECT r.rowid, r.owner, r.id, r.revision, r.text, r.kind, r.date, r.tags, r.metadata, r.perm_search, r.perm_patterns,
                   NULL, NULL
            FROM records r WHERE r.owner = ? AND json_type(r.metadata, '$.' || json_quote(?)) IS NOT NULL ORDER BY r.id
            """, [.text(owner), .text(key)], row: Self.readRecord).map(\.record)
    }
}
