/// Tables of pattern discovery (migration 3).
///
/// - `occurrences`: one row per occurrence; `id` is the stable occurrence id. Rows follow their
///   record (`ON DELETE CASCADE`); `vector` is a little-endian float32 BLOB of `index_version`, or
///   NULL while it waits for the embedder.
/// - `pattern_groups`: one row per group per owner; `body` is the grouping engine's JSON encoding of
///   the group, the other columns are copies for querying. `label_description` is the client's
///   optional description written with the label (cleared with it).
/// - `pattern_state`: per owner, the engine's counters and pending map (JSON).
/// - `pattern_corrections`: user corrections (engine JSON); undone ones are kept, flagged.
/// - `pattern_revisions` (migration 5): per owner, a counter that triggers bump on every insert,
///   update and delete of the owner's rows in `pattern_groups`, `pattern_state` and
///   `pattern_corrections`, whichever connection or process writes them. A copy of the owner's
///   pattern state read at one revision is current while the revision is unchanged.
/// - `pattern_input_log` (migration 5): one row per change that can alter an occurrence as the
///   engine sees it — the occurrence inserted, updated or deleted (a record's deletion cascades), or
///   its record's revision, date or patterns permission changed — written by triggers, in commit
///   order (`seq`). A copy of an owner's occurrences read at log position `p` is brought up to date
///   by re-reading the occurrences logged after `p`. `pattern_input_pruned.upto` is the last
///   position removed from the log: a copy older than that must be read again in full.
/// - `records_without_occurrences` (migration 5): a superset of the records that have no
///   occurrence row, kept by triggers (a record enters when it is inserted or loses its last
///   occurrence, leaves when one is inserted), so that finding the records that need passage
///   occurrences does not visit every record. Readers still check `NOT EXISTS`.
/// - `occurrences_waiting` and `occurrences_by_version` (migration 5): find occurrences waiting for
///   a vector of the current index version without visiting every occurrence.
/// - `records_without_vectors` (migration 5): a superset of the records with no row in `vectors`,
///   kept by triggers, so that the embedder finds its work without visiting every record.
enum PatternSchema {
    /// A trigger-kept superset of the records with no row in `child` (keyed by `record`): a record
    /// enters when it is inserted or loses its last row there, and leaves when a row is inserted.
    static func recordsWithout(_ child: String, table: String) -> String {
        """
        CREATE TABLE \(table)(record INTEGER PRIMARY KEY);
        INSERT INTO \(table)(record) SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM \(child) c WHERE c.record = r.rowid);
        CREATE TRIGGER \(table)_record_insert AFTER INSERT ON records BEGIN
            INSERT OR IGNORE INTO \(table)(record) VALUES (new.rowid);
        END;
        CREATE TRIGGER \(table)_record_delete AFTER DELETE ON records BEGIN
            DELETE FROM \(table) WHERE record = old.rowid;
        END;
        CREATE TRIGGER \(table)_insert AFTER INSERT ON \(child) BEGIN
            DELETE FROM \(table) WHERE record = new.record;
        END;
        CREATE TRIGGER \(table)_delete AFTER DELETE ON \(child) BEGIN
            INSERT OR IGNORE INTO \(table)(record) SELECT old.record
                WHERE EXISTS (SELECT 1 FROM records WHERE rowid = old.record)
                  AND NOT EXISTS (SELECT 1 FROM \(child) WHERE record = old.record);
        END;

        """
    }

    /// Migration 5: the revision counter, the input log and their triggers.
    static var changeTrackingSQL: String {
        var sql = """
            CREATE TABLE pattern_revisions(owner TEXT PRIMARY KEY, revision INTEGER NOT NULL);
            INSERT INTO pattern_revisions(owner, revision)
                SELECT owner, 1 FROM (SELECT owner FROM pattern_state UNION SELECT owner FROM pattern_groups
                                      UNION SELECT owner FROM pattern_corrections);

            """
        for table in ["pattern_groups", "pattern_state", "pattern_corrections"] {
            for (event, row) in [("INSERT", "new"), ("UPDATE", "new"), ("DELETE", "old")] {
                sql += """
                    CREATE TRIGGER \(table)_revision_\(event.lowercased()) AFTER \(event) ON \(table) BEGIN
                        INSERT INTO pattern_revisions(owner, revision) VALUES (\(row).owner, 1)
                            ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
                    END;

                    """
            }
        }
        sql += """
            CREATE TABLE pattern_input_log(seq INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NOT NULL, occurrence INTEGER NOT NULL);
            CREATE INDEX pattern_input_log_by_owner ON pattern_input_log(owner, seq);
            CREATE TABLE pattern_input_pruned(id INTEGER PRIMARY KEY CHECK (id = 1), upto INTEGER NOT NULL);
            INSERT INTO pattern_input_pruned(id, upto) VALUES (1, 0);
            CREATE TRIGGER occurrences_input_insert AFTER INSERT ON occurrences BEGIN
                INSERT INTO pattern_input_log(owner, occurrence) VALUES (new.owner, new.id);
            END;
            CREATE TRIGGER occurrences_input_update AFTER UPDATE ON occurrences BEGIN
                INSERT INTO pattern_input_log(owner, occurrence) VALUES (new.owner, new.id);
            END;
            CREATE TRIGGER occurrences_input_delete AFTER DELETE ON occurrences BEGIN
                INSERT INTO pattern_input_log(owner, occurrence) VALUES (old.owner, old.id);
            END;
            CREATE TRIGGER records_input_update AFTER UPDATE OF revision, date, perm_patterns ON records BEGIN
                INSERT INTO pattern_input_log(owner, occurrence) SELECT owner, id FROM occurrences WHERE record = new.rowid;
            END;
            CREATE INDEX occurrences_waiting ON occurrences(id) WHERE vector IS NULL OR index_version IS NULL;
            CREATE INDEX occurrences_by_version ON occurrences(index_version, id);

            """
        sql += recordsWithout("occurrences", table: "records_without_occurrences")
        sql += recordsWithout("vectors", table: "records_without_vectors")
        return sql
    }

    static let sql = """
        CREATE TABLE occurrences(
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            record INTEGER NOT NULL REFERENCES records(rowid) ON DELETE CASCADE,
            record_id TEXT NOT NULL,
            record_revision INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('client', 'passage')),
            category TEXT NOT NULL,
            description TEXT NOT NULL,
            excerpt TEXT NOT NULL,
            excerpt_start INTEGER NOT NULL,
            excerpt_end INTEGER NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            vector BLOB,
            index_version TEXT
        );
        CREATE INDEX occurrences_by_record ON occurrences(record);
        CREATE INDEX occurrences_by_owner ON occurrences(owner, id);
        CREATE TABLE pattern_groups(
            owner TEXT NOT NULL,
            id INTEGER NOT NULL,
            category TEXT NOT NULL,
            state TEXT NOT NULL,
            version INTEGER NOT NULL,
            label TEXT,
            label_description TEXT,
            body TEXT NOT NULL,
            PRIMARY KEY (owner, id)
        );
        CREATE TABLE pattern_state(
            owner TEXT PRIMARY KEY,
            next_group_id INTEGER NOT NULL,
            groups_version INTEGER NOT NULL,
            pending TEXT NOT NULL
        );
        CREATE TABLE pattern_corrections(
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at TEXT NOT NULL,
            undone INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX pattern_corrections_by_owner ON pattern_corrections(owner, id);
        """
}
