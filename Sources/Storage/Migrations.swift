/// Numbered schema migrations. Each runs in one transaction and is recorded in `schema_migrations`;
/// `PRAGMA user_version` mirrors the latest applied number.
enum Migrations {
    /// Every migration in order. The SQL is frozen text (`MigrationSQL`): append, never edit.
    static let all: [Migration] = [
        Migration(1, "records and vectors", MigrationSQL.v1),
        Migration(2, "keyword index", MigrationSQL.v2),
        Migration(3, "pattern discovery", MigrationSQL.v3),
        Migration(4, "pattern state: settled version, index version; group centroids", MigrationSQL.v4),
        Migration(5, "pattern revisions and input log", MigrationSQL.v5),
        Migration(6, "one schema for every file at version 5", MigrationSQL.v6),
        Migration(7, "record tombstones", MigrationSQL.v7),
        Migration(8, "keyword index with stemming", MigrationSQL.v8),
        Migration(9, "remote provider usage per owner and day", MigrationSQL.v9),
        Migration(10, "vectors staged by index/rebuild", MigrationSQL.v10),
        Migration(11, "evidence judge verdicts", MigrationSQL.v11),
        Migration(12, "stamp of the vector index's codes file", MigrationSQL.v12),
        Migration(14, "pending marks one row each; pending watermarks", MigrationSQL.v14),
        Migration(15, "keyword index without empty texts", MigrationSQL.v15),
        Migration(16, "vectors in blocks", MigrationSQL.v16, then: { db, _ in try VectorBlocks.moveRowsIntoBlocks(db) }, MigrationSQL.v16After),
        Migration(17, "index rows of inserts written per batch, not by triggers", MigrationSQL.v17),
        Migration(18, "cosine scale per owner and index version", MigrationSQL.v18),
        Migration(19, "background level in force per pattern category", MigrationSQL.v19),
        Migration(20, "themes above groups, their members and corrections", MigrationSQL.v20),
        Migration(21, "keyword index for every script: record language, Snowball stems, character pairs", MigrationSQL.v21,
                  then: KeywordMigration.reindex, MigrationSQL.v21After),
        Migration(22, "pending marks as typed columns", MigrationSQL.v22, then: PendingMarkMigration.move, MigrationSQL.v22After),
    ]

    static var latest: Int { all.last?.version ?? 0 }

    /// Where a long migration reports how far it is ("keyword index: 5000 of 20000 records").
    typealias Progress = (String) -> Void

    /// Applies every migration newer than the file's; returns the versions applied.
    @discardableResult
    static func migrate(_ db: Database, upTo target: Int = latest, progress: Progress? = nil) throws -> [Int] {
        try db.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations(
                version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))
            """)
        let current = try db.scalarInt("SELECT max(version) FROM schema_migrations") ?? 0
        var applied: [Int] = []
        for m in all where m.version > current && m.version <= target {
            try db.transaction {
                try db.execute(m.sql)
                if let then = m.then {
                    try then(db, progress)
                    try db.execute(m.sqlAfter)
                }
                try db.run("INSERT INTO schema_migrations(version, name) VALUES (?, ?)", [.from(m.version), .text(m.name)])
                try db.execute("PRAGMA user_version = \(m.version)")
            }
            applied.append(m.version)
        }
        return applied
    }
}

/// One numbered migration: frozen SQL, and for a move SQL cannot express, a step in code between
/// it and a second frozen SQL text (`sqlAfter`), all in the migration's one transaction.
struct Migration: Sendable {
    let version: Int
    let name: String
    let sql: String
    let then: (@Sendable (Database, Migrations.Progress?) throws -> Void)?
    let sqlAfter: String

    init(_ version: Int, _ name: String, _ sql: String, then: (@Sendable (Database, Migrations.Progress?) throws -> Void)? = nil, _ sqlAfter: String = "") {
        self.version = version
        self.name = name
        self.sql = sql
        self.then = then
        self.sqlAfter = sqlAfter
    }
}
