public import KindredCore

extension RecordStore {
    /// The outcomes of the records an upsert would leave as they are: an older revision than the
    /// stored one (`stale`), the stored revision with the same text (`unchanged`) or with other text
    /// (`conflict`), keyed by id. Texts are compared byte for byte inside SQLite, so no stored text
    /// is read. Records not in the answer would be created or updated.
    public func outcomesWithoutChange(owner: String, records: [Record]) throws -> [String: UpsertOutcome] {
        var absent = Set<String>()
        return try outcomesWithoutChange(owner: owner, records: records, absent: &absent)
    }

    /// As above; also adds to `absent` the ids with no record of `owner` (an upsert in the same
    /// transaction inserts those without looking them up again).
    public func outcomesWithoutChange(owner: String, records: [Record], absent: inout Set<String>) throws -> [String: UpsertOutcome] {
        var out: [String: UpsertOutcome] = [:]
        try database.reusing("SELECT rowid, revision, text = ?3 FROM records WHERE owner = ?1 AND id = ?2") { find in
            for r in records {
                find.reset()
                try find.bind(1, text: owner)
                try find.bind(2, text: r.id)
                try find.bind(3, text: r.text)
                guard try find.step() else {
                    absent.insert(r.id)
                    continue
                }
                let rowid = find.int(0), revision = find.int(1), sameText = find.int(2) != 0
                if r.revision < revision {
                    out[r.id] = UpsertOutcome(id: r.id, revision: revision, status: .stale, rowid: rowid)
                } else if r.revision == revision {
                    out[r.id] = UpsertOutcome(id: r.id, revision: revision, status: sameText ? .unchanged : .conflict, rowid: rowid)
                }
            }
        }
        return out
    }
}
