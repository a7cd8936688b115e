/// Numbered schema migrations. Each runs in one transaction and is recorded in `schema_migrations`;
/// `PRAGMA user_version` mirrors the latest applied number.
enum Migrations {
    /// Every migration in order. The SQL is frozen text (`MigrationSQL`): append, never edit.
    static let all: [(version: Int, name: String, sql: String)] = [
        (1, "records and vectors", MigrationSQL.v1),
        (2, "keyword index", MigrationSQL.v2),
        (3, "pattern discovery", MigrationSQL.v3),
        (4, "pattern state: settled version, index version; group centroids", MigrationSQL.v4),
        (5, "pattern revisions and input log", MigrationSQL.v5),
        (6, "one schema for every file at version 5", MigrationSQL.v6),
        (7, "record tombstones", MigrationSQL.v7),
        (8, "keyword index with stemming", MigrationSQL.v8),
        (9, "remote provider usage per owner and day", MigrationSQL.v9),
        (10, "vectors staged by index/rebuild", MigrationSQL.v10),
        (11, "evidence judge verdicts", MigrationSQL.v11),
        (12, "stamp of the vector index's codes file", MigrationSQL.v12),
        (14, "pending marks one row each; pending watermarks", MigrationSQL.v14),
        (15, "keyword index without empty texts", MigrationSQL.v15),
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
