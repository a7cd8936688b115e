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
enum PatternSchema {
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
