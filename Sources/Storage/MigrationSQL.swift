/// The SQL of every schema migration, frozen as the literal text the released version ran.
///
/// Never edit a migration that has been released, not even its whitespace: a file already at that
/// version never runs it again, so an edit would give new files a schema old files do not have.
/// Change the schema with a new, numbered migration. `Tests/StorageTests/Fixtures` keeps a file
/// written by the released code of each version, and the migration tests upgrade every one of them
/// and compare its schema with a new file's.
///
/// Tables of pattern discovery:
///
/// - `occurrences`: one row per occurrence; `id` is the stable occurrence id. Rows follow their
///   record (`ON DELETE CASCADE`); `vector` is a little-endian float32 BLOB of `index_version`, or
///   NULL while it waits for the embedder.
/// - `pattern_groups`: one row per group per owner; `body` is the grouping engine's JSON encoding of
///   the group, the other columns are copies for querying. `label_description` is the client's
///   optional description written with the label (cleared with it).
/// - `pattern_state`: per owner, the engine's counters; before migration 14 also its pending map
///   (JSON; since then `'[]'`), since then `pending_checked`, the engine's pending watermarks (JSON).
/// - `pattern_pending` (migration 14): one row per pending occurrence of an owner, so that a
///   refresh writes only the marks it changed; `mark` the engine's JSON of the mark until migration
///   22, since then the mark's fields as columns (`PendingMarkRow`): `evaluated_at` (NULL: fresh),
///   `category` of its scope, and its certificate (`checked_at` NULL: none; `candidates` the group
///   ids as little-endian int64).
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
///   occurrence row (a record enters when it is inserted or loses its last occurrence, leaves when
///   one is inserted), so that finding the records that need passage occurrences does not visit
///   every record. Readers still check `NOT EXISTS`. Kept by triggers, except the entry of a new
///   record, which `RecordStore.upsert` writes per batch since migration 17.
/// - `occurrences_waiting` and `occurrences_by_version` (migration 5): find occurrences waiting for
///   a vector of the current index version without visiting every occurrence.
/// - `records_without_vectors` (migration 5): a superset of the records with no row in `vectors`,
///   so that the embedder finds its work without visiting every record. Kept by triggers on
///   deletes; since migration 17 a new record without a vector enters, and a record leaves when
///   it gets a vector, by the writer (`RecordStore.upsert`, `PendingVectors.flush`).
enum MigrationSQL {
    /// Migration 1: records and their vectors.
    static let v1 = """
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
        """

    /// Migration 2: the FTS5 keyword index over record text, kept by triggers.
    static let v2 = """
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
        """

    /// Migration 3: occurrences, groups, per-owner engine state and corrections.
    static let v3 = """
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

    /// Migration 4: the settled version and index version of the engine state; group centroids.
    static let v4 = """
        ALTER TABLE pattern_state ADD COLUMN settled_at INTEGER;
        ALTER TABLE pattern_state ADD COLUMN index_version TEXT;
        ALTER TABLE pattern_groups ADD COLUMN centroid BLOB;
        """

    /// Migration 5: the pattern revision counter, the input log, and the trigger-kept tables of
    /// records waiting for occurrences and for vectors.
    static let v5 = """
        CREATE TABLE pattern_revisions(owner TEXT PRIMARY KEY, revision INTEGER NOT NULL);
        INSERT INTO pattern_revisions(owner, revision)
            SELECT owner, 1 FROM (SELECT owner FROM pattern_state UNION SELECT owner FROM pattern_groups
                                  UNION SELECT owner FROM pattern_corrections);

        CREATE TRIGGER pattern_groups_revision_insert AFTER INSERT ON pattern_groups BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_groups_revision_update AFTER UPDATE ON pattern_groups BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_groups_revision_delete AFTER DELETE ON pattern_groups BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (old.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_state_revision_insert AFTER INSERT ON pattern_state BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_state_revision_update AFTER UPDATE ON pattern_state BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_state_revision_delete AFTER DELETE ON pattern_state BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (old.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_corrections_revision_insert AFTER INSERT ON pattern_corrections BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_corrections_revision_update AFTER UPDATE ON pattern_corrections BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_corrections_revision_delete AFTER DELETE ON pattern_corrections BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (old.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

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

        CREATE TABLE records_without_occurrences(record INTEGER PRIMARY KEY);
        INSERT INTO records_without_occurrences(record) SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM occurrences c WHERE c.record = r.rowid);
        CREATE TRIGGER records_without_occurrences_record_insert AFTER INSERT ON records BEGIN
            INSERT OR IGNORE INTO records_without_occurrences(record) VALUES (new.rowid);
        END;
        CREATE TRIGGER records_without_occurrences_record_delete AFTER DELETE ON records BEGIN
            DELETE FROM records_without_occurrences WHERE record = old.rowid;
        END;
        CREATE TRIGGER records_without_occurrences_insert AFTER INSERT ON occurrences BEGIN
            DELETE FROM records_without_occurrences WHERE record = new.record;
        END;
        CREATE TRIGGER records_without_occurrences_delete AFTER DELETE ON occurrences BEGIN
            INSERT OR IGNORE INTO records_without_occurrences(record) SELECT old.record
                WHERE EXISTS (SELECT 1 FROM records WHERE rowid = old.record)
                  AND NOT EXISTS (SELECT 1 FROM occurrences WHERE record = old.record);
        END;

        CREATE TABLE records_without_vectors(record INTEGER PRIMARY KEY);
        INSERT INTO records_without_vectors(record) SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM vectors c WHERE c.record = r.rowid);
        CREATE TRIGGER records_without_vectors_record_insert AFTER INSERT ON records BEGIN
            INSERT OR IGNORE INTO records_without_vectors(record) VALUES (new.rowid);
        END;
        CREATE TRIGGER records_without_vectors_record_delete AFTER DELETE ON records BEGIN
            DELETE FROM records_without_vectors WHERE record = old.rowid;
        END;
        CREATE TRIGGER records_without_vectors_insert AFTER INSERT ON vectors BEGIN
            DELETE FROM records_without_vectors WHERE record = new.record;
        END;
        CREATE TRIGGER records_without_vectors_delete AFTER DELETE ON vectors BEGIN
            INSERT OR IGNORE INTO records_without_vectors(record) SELECT old.record
                WHERE EXISTS (SELECT 1 FROM records WHERE rowid = old.record)
                  AND NOT EXISTS (SELECT 1 FROM vectors WHERE record = old.record);
        END;
        """

    /// Migration 6: one schema for every file at version 5. Migration 5 was generated by code and
    /// changed after files were written with it: the first files have no `records_without_vectors`,
    /// and the first two name the 'records without' triggers differently (and keep a deleted
    /// record's id in `records_without_occurrences`). This drops the old triggers, creates what is
    /// missing under the released names, and rebuilds both tables from the rows they describe.
    static let v6 = """
        DROP TRIGGER IF EXISTS records_await_insert;
        DROP TRIGGER IF EXISTS records_await_delete;
        DROP TRIGGER IF EXISTS occurrences_await_insert;
        DROP TRIGGER IF EXISTS occurrences_await_delete;
        DROP TRIGGER IF EXISTS records_vector_await_insert;
        DROP TRIGGER IF EXISTS records_vector_await_delete;
        DROP TRIGGER IF EXISTS vectors_await_insert;
        DROP TRIGGER IF EXISTS vectors_await_delete;
        CREATE TABLE IF NOT EXISTS records_without_occurrences(record INTEGER PRIMARY KEY);
        DELETE FROM records_without_occurrences;
        INSERT INTO records_without_occurrences(record) SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM occurrences c WHERE c.record = r.rowid);
        CREATE TRIGGER IF NOT EXISTS records_without_occurrences_record_insert AFTER INSERT ON records BEGIN
            INSERT OR IGNORE INTO records_without_occurrences(record) VALUES (new.rowid);
        END;
        CREATE TRIGGER IF NOT EXISTS records_without_occurrences_record_delete AFTER DELETE ON records BEGIN
            DELETE FROM records_without_occurrences WHERE record = old.rowid;
        END;
        CREATE TRIGGER IF NOT EXISTS records_without_occurrences_insert AFTER INSERT ON occurrences BEGIN
            DELETE FROM records_without_occurrences WHERE record = new.record;
        END;
        CREATE TRIGGER IF NOT EXISTS records_without_occurrences_delete AFTER DELETE ON occurrences BEGIN
            INSERT OR IGNORE INTO records_without_occurrences(record) SELECT old.record
                WHERE EXISTS (SELECT 1 FROM records WHERE rowid = old.record)
                  AND NOT EXISTS (SELECT 1 FROM occurrences WHERE record = old.record);
        END;
        CREATE TABLE IF NOT EXISTS records_without_vectors(record INTEGER PRIMARY KEY);
        DELETE FROM records_without_vectors;
        INSERT INTO records_without_vectors(record) SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM vectors c WHERE c.record = r.rowid);
        CREATE TRIGGER IF NOT EXISTS records_without_vectors_record_insert AFTER INSERT ON records BEGIN
            INSERT OR IGNORE INTO records_without_vectors(record) VALUES (new.rowid);
        END;
        CREATE TRIGGER IF NOT EXISTS records_without_vectors_record_delete AFTER DELETE ON records BEGIN
            DELETE FROM records_without_vectors WHERE record = old.rowid;
        END;
        CREATE TRIGGER IF NOT EXISTS records_without_vectors_insert AFTER INSERT ON vectors BEGIN
            DELETE FROM records_without_vectors WHERE record = new.record;
        END;
        CREATE TRIGGER IF NOT EXISTS records_without_vectors_delete AFTER DELETE ON vectors BEGIN
            INSERT OR IGNORE INTO records_without_vectors(record) SELECT old.record
                WHERE EXISTS (SELECT 1 FROM records WHERE rowid = old.record)
                  AND NOT EXISTS (SELECT 1 FROM vectors WHERE record = old.record);
        END;
        """

    /// Migration 7: tombstones of deleted records (owner, id, the revision it had, when).
    static let v7 = """
        CREATE TABLE record_tombstones(
            owner TEXT NOT NULL,
            id TEXT NOT NULL,
            revision INTEGER NOT NULL CHECK (revision > 0),
            deleted_at TEXT NOT NULL,
            PRIMARY KEY (owner, id)
        ) WITHOUT ROWID;
        """

    /// Migration 8: the keyword index again, with Porter stemming on top of unicode61 (so "fly"
    /// finds "flying" and "cranes" finds "crane"); rebuilt from the records.
    static let v8 = """
        DROP TRIGGER records_fts_insert;
        DROP TRIGGER records_fts_delete;
        DROP TRIGGER records_fts_update;
        DROP TABLE records_fts;
        CREATE VIRTUAL TABLE records_fts USING fts5(
            text, content='records', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
        INSERT INTO records_fts(records_fts) VALUES ('rebuild');
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
        """

    /// Migration 9: what each owner asked of remote providers, per UTC day and provider.
    static let v9 = """
        CREATE TABLE usage_daily(
            owner TEXT NOT NULL,
            day TEXT NOT NULL,
            provider TEXT NOT NULL,
            calls INTEGER NOT NULL DEFAULT 0,
            attempts INTEGER NOT NULL DEFAULT 0,
            input_chars INTEGER NOT NULL DEFAULT 0,
            tokens INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (owner, day, provider)
        ) WITHOUT ROWID;
        """

    /// Migration 10: vectors of the index version being built by `index/rebuild`, kept beside the
    /// serving ones until every record has one.
    static let v10 = """
        CREATE TABLE vectors_next(
            record INTEGER PRIMARY KEY REFERENCES records(rowid) ON DELETE CASCADE,
            index_version TEXT NOT NULL,
            revision INTEGER NOT NULL,
            data BLOB NOT NULL
        );
        """

    /// Migration 11: the evidence judge's verdicts, one per question: an occurrence (at its record
    /// revision) against a group at one version, or against the seed a group would be founded from
    /// (named by its representative occurrence; `group_id` and `group_version` are then 0).
    static let v11 = """
        CREATE TABLE pattern_verdicts(
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            occurrence INTEGER NOT NULL REFERENCES occurrences(id) ON DELETE CASCADE,
            record_revision INTEGER NOT NULL,
            group_id INTEGER NOT NULL,
            group_version INTEGER NOT NULL,
            seed INTEGER REFERENCES occurrences(id) ON DELETE CASCADE,
            match INTEGER NOT NULL CHECK (match IN (0, 1)),
            shared_element TEXT NOT NULL DEFAULT '',
            difference TEXT NOT NULL DEFAULT '',
            label TEXT,
            judge TEXT NOT NULL,
            decided_at TEXT NOT NULL,
            CHECK ((seed IS NULL) = (group_id > 0))
        );
        CREATE UNIQUE INDEX pattern_verdicts_question
            ON pattern_verdicts(occurrence, record_revision, group_id, group_version, coalesce(seed, 0));
        CREATE INDEX pattern_verdicts_owner ON pattern_verdicts(owner);
        CREATE INDEX pattern_verdicts_seed ON pattern_verdicts(seed) WHERE seed IS NOT NULL;
        """

    /// Migration 12: the stamp of the vector index's codes file. A service writes the file when it
    /// closes and records the file's token here; the next start reads the codes from the file only
    /// if the token is still here, and takes the row away before it writes anything. Any change to
    /// what the index holds, by whichever connection or process, deletes the row first.
    static let v12 = """
        CREATE TABLE vector_codes_file(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            index_version TEXT NOT NULL,
            token TEXT NOT NULL
        );
        CREATE TRIGGER vector_codes_file_vectors_insert AFTER INSERT ON vectors BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        CREATE TRIGGER vector_codes_file_vectors_update AFTER UPDATE ON vectors BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        CREATE TRIGGER vector_codes_file_vectors_delete AFTER DELETE ON vectors BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        CREATE TRIGGER vector_codes_file_next_insert AFTER INSERT ON vectors_next BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        CREATE TRIGGER vector_codes_file_next_update AFTER UPDATE ON vectors_next BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        CREATE TRIGGER vector_codes_file_next_delete AFTER DELETE ON vectors_next BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        CREATE TRIGGER vector_codes_file_record_update AFTER UPDATE OF owner, revision, perm_search ON records BEGIN
            DELETE FROM vector_codes_file WHERE id = 1;
        END;
        CREATE TRIGGER vector_codes_file_record_delete AFTER DELETE ON records BEGIN DELETE FROM vector_codes_file WHERE id = 1; END;
        """

    /// Migration 14: pending marks one row each (moved out of `pattern_state.pending`, whose JSON is
    /// `[id, mark, id, mark, …]`), and the engine's pending watermarks. Writes to `pattern_pending`
    /// bump the owner's pattern revision like the other pattern tables.
    static let v14 = """
        CREATE TABLE pattern_pending(
            owner TEXT NOT NULL,
            occurrence INTEGER NOT NULL,
            mark TEXT NOT NULL,
            PRIMARY KEY(owner, occurrence)
        ) WITHOUT ROWID;
        INSERT INTO pattern_pending(owner, occurrence, mark)
            SELECT owner, id, mark FROM (
                SELECT s.owner AS owner, j.key AS k, j.value AS id,
                       lead(j.value) OVER (PARTITION BY s.owner ORDER BY j.key) AS mark
                FROM pattern_state s,
                     json_each(CASE WHEN json_valid(s.pending) AND json_type(s.pending) = 'array' THEN s.pending ELSE '[]' END) j)
            WHERE k % 2 = 0 AND mark IS NOT NULL;
        UPDATE pattern_state SET pending = '[]';
        ALTER TABLE pattern_state ADD COLUMN pending_checked TEXT;

        CREATE TRIGGER pattern_pending_revision_insert AFTER INSERT ON pattern_pending BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_pending_revision_update AFTER UPDATE ON pattern_pending BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (new.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;

        CREATE TRIGGER pattern_pending_revision_delete AFTER DELETE ON pattern_pending BEGIN
            INSERT INTO pattern_revisions(owner, revision) VALUES (old.owner, 1)
                ON CONFLICT(owner) DO UPDATE SET revision = revision + 1;
        END;
        """

    /// Migration 15: the keyword index leaves out records whose text is empty (records written
    /// with a vector alone). They match no term; indexing them cost FTS5 work for every such record
    /// written. BM25's record count is then the count of records with text. The index is refilled
    /// from the records with text.
    static let v15 = """
        DROP TRIGGER records_fts_insert;
        DROP TRIGGER records_fts_delete;
        DROP TRIGGER records_fts_update;
        INSERT INTO records_fts(records_fts) VALUES ('delete-all');
        INSERT INTO records_fts(rowid, text) SELECT rowid, text FROM records WHERE text != '';
        CREATE TRIGGER records_fts_insert AFTER INSERT ON records WHEN new.text != '' BEGIN
            INSERT INTO records_fts(rowid, text) VALUES (new.rowid, new.text);
        END;
        CREATE TRIGGER records_fts_delete AFTER DELETE ON records WHEN old.text != '' BEGIN
            INSERT INTO records_fts(records_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
        END;
        CREATE TRIGGER records_fts_update AFTER UPDATE OF text ON records BEGIN
            INSERT INTO records_fts(records_fts, rowid, text) SELECT 'delete', old.rowid, old.text WHERE old.text != '';
            INSERT INTO records_fts(rowid, text) SELECT new.rowid, new.text WHERE new.text != '';
        END;
        """

    /// Migration 16: vectors stored in blocks (`VectorBlocks`). `vector_blocks` holds 16 vectors of
    /// one width per row; each `vectors` row names its record's `block` and `slot` instead of
    /// holding the bytes; `vector_free_slots` lists the slots no row names. Between this text and
    /// `v16After`, `VectorBlocks.moveRowsIntoBlocks` copies every `data` into blocks. A row whose
    /// bytes are not whole floats keeps block 0, which no block has: it reads as no vector, as its
    /// bytes did before. `vectors_next` (staging of `index/rebuild`) keeps one row per vector; its
    /// rows go into blocks when the rebuild completes.
    static let v16 = """
        CREATE TABLE vector_blocks(
            block INTEGER PRIMARY KEY,
            width INTEGER NOT NULL CHECK (width > 0),
            data BLOB NOT NULL
        );
        CREATE TABLE vector_free_slots(
            block INTEGER NOT NULL REFERENCES vector_blocks(block) ON DELETE CASCADE,
            slot INTEGER NOT NULL,
            PRIMARY KEY (block, slot)
        ) WITHOUT ROWID;
        ALTER TABLE vectors ADD COLUMN block INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE vectors ADD COLUMN slot INTEGER NOT NULL DEFAULT 0;
        """

    /// Migration 16, after the move: the bytes' column goes, and a slot is freed when its row is
    /// deleted or moves to another place.
    static let v16After = """
        ALTER TABLE vectors DROP COLUMN data;
        CREATE TRIGGER vector_slot_free_delete AFTER DELETE ON vectors WHEN old.block != 0 BEGIN
            INSERT INTO vector_free_slots(block, slot) VALUES (old.block, old.slot);
        END;
        CREATE TRIGGER vector_slot_free_move AFTER UPDATE OF block, slot ON vectors
            WHEN old.block != 0 AND (old.block != new.block OR old.slot != new.slot) BEGIN
            INSERT INTO vector_free_slots(block, slot) VALUES (old.block, old.slot);
        END;
        """

    /// Migration 17: what an insert of a record or a vector implies is written by the store's
    /// writers, a batch at a time (`RecordStore.upsert`, `PendingVectors.flush`), instead of by
    /// triggers on every row: the record's keyword-index entry (only for a record with text), its
    /// rows in `records_without_occurrences` and `records_without_vectors`, the removal from
    /// `records_without_vectors` when it gets a vector, and the removal of the codes file's stamp.
    /// A statement that fires a trigger is journaled (SQLite copies every page it changes first,
    /// so that the statement can be undone alone); without insert triggers, an insert of one row
    /// is not. Deletes and updates keep their triggers: any connection that deletes or edits still
    /// keeps these tables right.
    static let v17 = """
        DROP TRIGGER records_fts_insert;
        DROP TRIGGER records_without_occurrences_record_insert;
        DROP TRIGGER records_without_vectors_record_insert;
        DROP TRIGGER records_without_vectors_insert;
        DROP TRIGGER vector_codes_file_vectors_insert;
        """

    /// Migration 18: the background scale of each owner's cosines per index version (mean and
    /// spread over pairs of its record vectors), which hybrid fusion weighs the keyword bonus by;
    /// measured again only when the owner's vector count has moved by a factor since.
    static let v18 = """
        CREATE TABLE owner_scales(
            owner TEXT NOT NULL,
            index_version TEXT NOT NULL,
            mean REAL NOT NULL,
            spread REAL NOT NULL,
            records INTEGER NOT NULL,
            pairs INTEGER NOT NULL,
            PRIMARY KEY (owner, index_version)) WITHOUT ROWID;
        """

    /// Migration 19: the background level in force per category of an owner's patterns (JSON),
    /// which the grouping thresholds follow and which moves only past a margin.
    static let v19 = """
        ALTER TABLE pattern_state ADD COLUMN background_levels TEXT;
        """

    /// Migration 20: themes above groups. A theme's row holds its JSON body without its members;
    /// `pattern_theme_members` holds which theme each group is in (one at most); the counter in
    /// `pattern_theme_state` never goes back, so theme ids are never reused. Theme corrections are
    /// kept apart from group corrections, their ids drawn from the same sequence.
    static let v20 = """
        CREATE TABLE pattern_themes(
            owner TEXT NOT NULL,
            id INTEGER NOT NULL,
            category TEXT NOT NULL,
            state TEXT NOT NULL,
            version INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (owner, id)) WITHOUT ROWID;
        CREATE TABLE pattern_theme_members(
            owner TEXT NOT NULL,
            group_id INTEGER NOT NULL,
            theme INTEGER NOT NULL,
            source TEXT NOT NULL,
            PRIMARY KEY (owner, group_id)) WITHOUT ROWID;
        CREATE INDEX pattern_theme_members_by_theme ON pattern_theme_members(owner, theme);
        CREATE TABLE pattern_theme_state(
            owner TEXT PRIMARY KEY,
            next_theme_id INTEGER NOT NULL,
            version INTEGER NOT NULL);
        CREATE TABLE pattern_theme_corrections(
            id INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at TEXT NOT NULL,
            undone INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX pattern_theme_corrections_by_owner ON pattern_theme_corrections(owner, id);
        """

    /// Migration 21: keyword search for every script. Each record gets the language its text is
    /// written in (`TextLanguage.detect`; NULL when nothing says) and, when the keyword index must
    /// read something else than the text (`KeywordText.document`: Snowball stems, characters and
    /// pairs of characters of scripts without spaces), that text in `keyword_text`; NULL means the
    /// index reads `text`. The index's content is the view `records_keyword` of what it reads, so
    /// FTS5's own `rebuild` and `integrity-check` stay right. Between this text and `v21After`,
    /// `KeywordMigration.reindex` fills both columns and the new index, with progress.
    static let v21 = """
        ALTER TABLE records ADD COLUMN language TEXT;
        ALTER TABLE records ADD COLUMN keyword_text TEXT;
        DROP TRIGGER records_fts_delete;
        DROP TRIGGER records_fts_update;
        DROP TABLE records_fts;
        CREATE VIEW records_keyword AS SELECT rowid AS rowid, coalesce(keyword_text, text) AS text FROM records WHERE text != '';
        CREATE VIRTUAL TABLE records_fts USING fts5(
            text, content='records_keyword', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
        """

    /// Migration 21, after the re-indexing: the triggers keep the index on what it reads.
    static let v21After = """
        CREATE TRIGGER records_fts_delete AFTER DELETE ON records WHEN old.text != '' BEGIN
            INSERT INTO records_fts(records_fts, rowid, text) VALUES ('delete', old.rowid, coalesce(old.keyword_text, old.text));
        END;
        CREATE TRIGGER records_fts_update AFTER UPDATE OF text, keyword_text ON records BEGIN
            INSERT INTO records_fts(records_fts, rowid, text) SELECT 'delete', old.rowid, coalesce(old.keyword_text, old.text) WHERE old.text != '';
            INSERT INTO records_fts(rowid, text) SELECT new.rowid, coalesce(new.keyword_text, new.text) WHERE new.text != '';
        END;
        """

    /// Migration 22: pending marks as typed columns instead of the engine's JSON. Between this text
    /// and `v22After`, `PendingMarkMigration.move` reads each mark's JSON into the new columns.
    static let v22 = """
        ALTER TABLE pattern_pending ADD COLUMN evaluated_at INTEGER;
        ALTER TABLE pattern_pending ADD COLUMN category TEXT;
        ALTER TABLE pattern_pending ADD COLUMN checked_at INTEGER;
        ALTER TABLE pattern_pending ADD COLUMN candidates BLOB;
        ALTER TABLE pattern_pending ADD COLUMN kth_score INTEGER;
        ALTER TABLE pattern_pending ADD COLUMN kth_group INTEGER;
        ALTER TABLE pattern_pending ADD COLUMN stamp INTEGER;
        """

    /// Migration 22, after the move: the JSON goes.
    static let v22After = """
        ALTER TABLE pattern_pending DROP COLUMN mark;
        """
}
