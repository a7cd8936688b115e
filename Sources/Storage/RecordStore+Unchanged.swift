public import KindredCore

extension RecordStore {
    /// The outcomes of the records an upsert would leave as they are: an older revision than the
    /// stored one (`stale`), the stored revision with the same text (`unchanged`) or with other text
    /// (`conflict`), keyed by id. Texts are compared byte for byte inside SQLite, so no stored text
    /// is read. Records not in the answer would be created or updated.
    public func outcomesWithoutChange(owner: String, records: [Record]) throws -> [String: UpsertOutcome] {
        let find = try database.prepare("SELECT rowid, revision, text = ?3 FROM records WHERE owner = ?1 AND id = ?2")
        var out: [String: UpsertOutcome] = [:]
        for r in records {
            try find.bind([.text(owner), .text(r.id), .text(r.text)])
            guard try find.step() else { continue }
            let rowid = find.int(0), revision = find.int(1), sameText = find.int(2) != 0
            if r.revision < revision {
                out[r.id] = UpsertOutcome(id: r.id, revision: revision, status: .stale, rowid: rowid)
            } else if r.revision == revision {
                out[r.id] = UpsertOutcome(id: r.id, revision: revision, status: sameText ? .unchanged : .conflict, rowid: rowid)
            }
        }
        return out
    }
}
