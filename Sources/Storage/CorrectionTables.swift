/// The two tables of a person's corrections: of groups (`pattern_corrections`) and of themes
/// (`pattern_theme_corrections`). Both hold the same columns, and ids from one sequence
/// (`nextCorrectionID`); the rows are read, written and undone alike.
public enum CorrectionTable: String, Sendable {
    case groups = "pattern_corrections"
    case themes = "pattern_theme_corrections"
}

extension RecordStore {
    public func insertCorrection(into table: CorrectionTable = .groups, id: Int64, owner: String, body: String, createdAt: String) throws {
        try database.run("INSERT INTO \(table.rawValue)(id, owner, body, created_at) VALUES (?, ?, ?, ?)",
                         [.int(id), .text(owner), .text(body), .text(createdAt)])
    }

    public func correctionRows(in table: CorrectionTable = .groups, owner: String) throws -> [CorrectionRow] {
        try database.query("SELECT id, owner, body, created_at, undone FROM \(table.rawValue) WHERE owner = ? ORDER BY id", [.text(owner)]) {
            CorrectionRow(id: $0.int(0), owner: $0.text(1) ?? "", body: $0.text(2) ?? "{}", createdAt: $0.text(3) ?? "", undone: $0.int(4) != 0)
        }
    }

    /// Flags a correction undone; false when the owner has no such active one.
    public func undoCorrection(in table: CorrectionTable = .groups, owner: String, id: Int64) throws -> Bool {
        try database.run("UPDATE \(table.rawValue) SET undone = 1 WHERE owner = ? AND id = ? AND undone = 0", [.text(owner), .int(id)])
        return database.changes > 0
    }
}
