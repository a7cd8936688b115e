public import KindredCore

/// The stamp of the vector index's codes file (migration 12): written when a service closes with
/// its index in step with the file, taken away when the next one starts.
extension RecordStore {
    /// Removes the stamp and returns its token if it was for `indexVersion` (one transaction, so a
    /// start never uses a file that another start has already taken).
    public func takeCodesFileToken(indexVersion: IndexVersion) throws -> String? {
        try database.transaction {
            let row = try database.query("SELECT index_version, token FROM vector_codes_file WHERE id = 1") { ($0.text(0) ?? "", $0.text(1) ?? "") }.first
            guard let row else { return nil }
            try database.run("DELETE FROM vector_codes_file WHERE id = 1")
            return row.0 == indexVersion.description ? row.1 : nil
        }
    }

    /// Records that the codes file with `token` holds exactly the index of `indexVersion` as stored now.
    public func stampCodesFile(token: String, indexVersion: IndexVersion) throws {
        try database.run("INSERT OR REPLACE INTO vector_codes_file(id, index_version, token) VALUES (1, ?, ?)",
                         [.text(indexVersion.description), .text(token)])
    }

    /// SQLite's `data_version` of this connection: it changes when any other connection commits.
    public func dataVersion() throws -> Int64 {
        try database.scalarInt("PRAGMA data_version") ?? 0
    }
}
