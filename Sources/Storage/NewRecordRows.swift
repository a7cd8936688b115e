/// The rows a new record implies beside its `records` row (migration 17; triggers wrote them
/// before): its keyword-index entry when it has text, and its entries in the superset tables
/// `records_without_occurrences` (every new record) and `records_without_vectors` (a new record
/// that ends the write without a vector). The keyword entry is written with the record; the two
/// superset tables once per write, after its vectors (`add` collects, `write` writes).
///
/// Each insert is a one-row statement with no trigger, so SQLite journals none of them (a statement
/// that fires a trigger, or writes a virtual table, copies every page it changes first).
struct NewRecordRows {
    private var rowids: [Int64] = []
    /// New records written without a vector (a later record of the same write may give one).
    private var withoutVector: [Int64] = []

    /// The keyword-index entry of a record just inserted (none for empty text, as migration 15).
    static func index(_ db: Database, rowid: Int64, text: String) throws {
        guard !text.isEmpty else { return }
        try db.reusing("INSERT INTO records_fts(rowid, text) VALUES (?1, ?2)") { s in
            try s.bind(1, int: rowid)
            try s.bind(2, text: text)
            _ = try s.step()
            s.reset()
        }
    }

    /// A new record; `vector`: whether the write gives it a vector (one of at least one float).
    mutating func add(_ rowid: Int64, vector: Bool) {
        rowids.append(rowid)
        if !vector { withoutVector.append(rowid) }
    }

    /// Writes the superset rows of every record added, inside the open transaction, once the
    /// write's vectors are written: a record written without a vector enters
    /// `records_without_vectors` unless it has a vector row by then (the same id again later in
    /// the write, with a vector).
    mutating func write(_ db: Database) throws {
        guard !rowids.isEmpty else { return }
        try db.reusing("INSERT OR IGNORE INTO records_without_occurrences(record) VALUES (?1)") { s in
            for rowid in rowids {
                try s.bind(1, int: rowid)
                _ = try s.step()
                s.reset()
            }
        }
        try db.reusing("""
            INSERT OR IGNORE INTO records_without_vectors(record) SELECT ?1 WHERE NOT EXISTS (SELECT 1 FROM vectors WHERE record = ?1)
            """) { s in
            for rowid in withoutVector {
                try s.bind(1, int: rowid)
                _ = try s.step()
                s.reset()
            }
        }
        rowids.removeAll()
        withoutVector.removeAll()
    }
}
