/// Numbered schema migrations. Each runs in one transaction and is recorded in `schema_migrations`;
/// `PRAGMA user_version` mirrors the latest applied number.
enum Migrations {
    static let all: [(version: Int, name: String, sql: String)] = [
        (1, "records and vectors", """
            CREATE TABLE records(
                rowid INTEGER PRIMARY KEY,
                owner TEXT NOT NULL,
                id TEXT NOT NULL,
                revision INTEGER NOT NULL CHECK (revision > 0),
                text TEXT NOT NULL,
                kind TEXT,
                date TEXT,
                tags TEXT NOT NULL DEFAULT '[]',
                metadata TEXT NOT NULL DEFAULT '{}',
                perm_search INTEGER NOT NULL DEFAULT 1,
                perm_patterns INTEGER NOT NULL DEFAULT 1,
                UNIQUE(owner, id)
            );
            CREATE TABLE vectors(
                record INTEGER PRIMARY KEY REFERENCES records(rowid) ON DELETE CASCADE,
                index_version TEXT NOT NULL,
                revision INTEGER NOT NULL,
                source TEXT NOT NULL CHECK (source IN ('client', 'model')),
                data BLOB NOT NULL
            );
            CREATE INDEX vectors_by_version ON vectors(index_version);
            """),
        (2, "keyword index", """
            CREATE VIRTUAL TABLE records_fts USING fts5(
                text, content='records', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
            INSERT INTO records_fts(rowid, text) SELECT rowid, text FROM records;
            CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
                INSERT INTO records_fts(rowid, text) VALUES (new.rowid, new.text);
            END;
            CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
                INSERT INTO records_fts(records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
            END;
            CREATE TRIGGER records_fts_update AFTER UPDATE OF text ON records BEGIN
                INSERT INTO records_fts(records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
                INSERT INTO records_fts(rowid, text) VALUES (new.rowid, new.text);
            END;
            """),
        (3, "pattern discovery", PatternSchema.sql),
        (4, "pattern state: settled version, index version; group centroids", """
            ALTER TABLE pattern_state ADD COLUMN settled_at INTEGER;
            ALTER TABLE pattern_state ADD COLUMN index_version TEXT;
            ALTER TABLE pattern_groups ADD COLUMN centroid BLOB;
            """),
        (5, "pattern revisions and input log", PatternSchema.changeTrackingSQL),
    ]

    static var latest: Int { all.last?.version ?? 0 }

    /// Applies every migration newer than the file's; returns the versions applied.
    @discardableResult
    static func migrate(_ db: Database, upTo target: Int = latest) throws -> [Int] {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations(
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))
            """)
        let current = try db.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0
        var applied: [Int] = []
        for m in all where m.version > current && m.version <= target {
            try db.transaction {
                try db.execute(m.sql)
                try db.run("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [.from(m.version), .text(m.name)])
                try db.execute("PRAGMA user_version = \(m.version)")
            }
            applied.append(m.version)
        }
        return applied
    }
}
