import KindredCore

/// The code step of migration 21 (between `MigrationSQL.v21` and `v21After`, in its transaction):
/// every record with text gets its language and index text, and goes into the new keyword index
/// under that text. Reports progress every 5 000 records (nothing for an empty store).
enum KeywordMigration {
    static func reindex(_ db: Database, progress report: Migrations.Progress?) throws {
        let total = Int(try db.scalarInt("SELECT count(*) FROM records WHERE text != ''") ?? 0)
        guard total > 0 else { return }
        report?("keyword index (migration 21): indexing \(total) records again, each in its language")
        let rows = try db.prepare("SELECT rowid, text FROM records WHERE text != '' ORDER BY rowid")
        var done = 0, other = 0
        while try rows.step() {
            let rowid = rows.int(0), text = rows.text(1) ?? ""
            let row = IndexText(text)
            if row.language != nil || row.keywordText != nil {
                try db.reusing("UPDATE records SET language = ?2, keyword_text = ?3 WHERE rowid = ?1") { s in
                    try s.bind(1, int: rowid)
                    try s.bind(2, text: row.language?.rawValue)
                    try s.bind(3, text: row.keywordText)
                    _ = try s.step()
                    s.reset()
                }
            }
            if row.keywordText != nil { other += 1 }
            try db.reusing("INSERT INTO records_fts(rowid, text) VALUES (?1, ?2)") { s in
                try s.bind(1, int: rowid)
                try s.bind(2, text: row.indexed(text))
                _ = try s.step()
                s.reset()
            }
            done += 1
            if done % 5000 == 0 { report?("keyword index (migration 21): \(done) of \(total) records") }
        }
        report?("keyword index (migration 21): done, \(done) records, \(other) of them read through stems or character pairs")
    }
}

/// A record text's language and index text (`KeywordText.document`), as stored in `records`.
public struct IndexText: Sendable, Equatable {
    public var language: TextLanguage?
    /// nil when the index reads the text itself.
    public var keywordText: String?

    public init(_ text: String) {
        language = text.isEmpty ? nil : TextLanguage.detect(text)
        let document = KeywordText.document(text, language: language)
        keywordText = document == text ? nil : document
    }

    /// What the index reads for `text`.
    public func indexed(_ text: String) -> String { keywordText ?? text }
}
