public import KindredCore

/// Occurrences, groups, engine state and corrections. These methods open no transaction of their
/// own (except where noted): the service wraps everything one request writes in one
/// `database.transaction`.
extension RecordStore {
    // MARK: occurrences

    static let occurrenceColumns = """
        o.id, o.owner, o.record, o.record_id, o.record_revision, r.date, o.source, o.category, o.description,
        o.excerpt, o.excerpt_start, o.excerpt_end, o.tags, r.kind
        """

    /// An occurrence is eligible when its record allows patterns, it was made for the record's
    /// current revision and it has a vector of the current index version.
    static func eligibility(includePassages: Bool) -> String {
        """
        r.perm_patterns = 1 AND o.record_revision = r.revision AND o.vector IS NOT NULL AND o.index_version = ?
        \(includePassages ? "" : "AND o.source = 'client'")
        """
    }

    static func readOccurrence(_ s: Statement, dimension: Int?) -> StoredOccurrence {
        let tags = (try? JSONParser.parse(s.text(12) ?? "[]"))?.arrayValue?.compactMap(\.stringValue) ?? []
        var vector: [Float]?
        if let dimension {
            var v: [Float] = []
            v.reserveCapacity(dimension)
            if s.withBlob(14, { VectorBlob.decode($0, dimension: dimension, into: &v) }) { vector = v }
        }
        return StoredOccurrence(
            id: s.int(0), owner: s.text(1) ?? "", recordRowid: s.int(2), recordID: s.text(3) ?? "", recordRevision: s.int(4),
            recordDate: s.text(5), recordKind: s.text(13) ?? "", source: s.text(6) ?? "client", category: s.text(7) ?? "", description: s.text(8) ?? "",
            excerpt: s.text(9) ?? "", start: Int(s.int(10)), end: Int(s.int(11)), tags: tags, vector: vector)
    }

    /// The owner's eligible occurrences in id order; with vectors when `withVectors`. `ids` limits them.
    public func eligibleOccurrences(owner: String, indexVersion: IndexVersion, includePassages: Bool,
                                    withVectors: Bool, ids: [Int64]? = nil) throws -> [StoredOccurrence] {
        var args: [SQLValue] = [.text(owner), .text(indexVersion.description)]
        var idSQL = ""
        if let ids {
            idSQL = "AND o.id IN (SELECT value FROM json_each(?))"
            args.append(.text(JSONWriter.string(.array(ids.map { .int($0) }))))
        }
        let dimension = withVectors ? indexVersion.dimension : nil
        return try database.query("""
            SELECT \(Self.occurrenceColumns), \(withVectors ? "o.vector" : "NULL")
            FROM occurrences o JOIN records r ON r.rowid = o.record
            WHERE o.owner = ? AND \(Self.eligibility(includePassages: includePassages)) \(idSQL)
            ORDER BY o.id
            """, args) { Self.readOccurrence($0, dimension: dimension) }
    }

    /// Any of the owner's occurrences by id (eligible or not), without vectors.
    public func occurrences(owner: String, ids: [Int64]) throws -> [StoredOccurrence] {
        guard !ids.isEmpty else { return [] }
        return try database.query("""
            SELECT \(Self.occurrenceColumns), NULL FROM occurrences o JOIN records r ON r.rowid = o.record
            WHERE o.owner = ? AND o.id IN (SELECT value FROM json_each(?)) ORDER BY o.id
            """, [.text(owner), .text(JSONWriter.string(.array(ids.map { .int($0) })))]) { Self.readOccurrence($0, dimension: nil) }
    }

    public func occurrenceIDs(record rowid: Int64) throws -> [Int64] {
        try database.query("SELECT id FROM occurrences WHERE record = ? ORDER BY id", [.int(rowid)]) { $0.int(0) }
    }

    /// Inserts occurrences of one record at `revision`; returns their new ids in order.
    public func insertOccurrences(owner: String, record rowid: Int64, recordID: String, revision: Int64,
                                  _ items: [NewOccurrence], indexVersion: IndexVersion) throws -> [Int64] {
        let insert = try database.prepare("""
            INSERT INTO occurrences(owner, record, record_id, record_revision, source, category, description, excerpt,
                excerpt_start, excerpt_end, tags, vector, index_version)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var ids: [Int64] = []
        for o in items {
            try insert.bind([
                .text(owner), .int(rowid), .text(recordID), .int(revision), .text(o.source), .text(o.category),
                .text(o.description), .text(o.excerpt), .from(o.start), .from(o.end), .text(JSONWriter.string(.from(o.tags))),
                o.vector.map { .blob(VectorBlob.encode($0)) } ?? .null, o.vector == nil ? .null : .text(indexVersion.description),
            ])
            try insert.step()
            ids.append(database.lastInsertRowID)
        }
        return ids
    }

    public func deleteOccurrences(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.run("DELETE FROM occurrences WHERE id IN (SELECT value FROM json_each(?))",
                         [.text(JSONWriter.string(.array(ids.map { .int($0) })))])
    }

    /// Occurrences still describe the record (its text did not change): move them to `revision`.
    public func moveOccurrences(record rowid: Int64, from old: Int64, to revision: Int64) throws {
        try database.run("UPDATE occurrences SET record_revision = ? WHERE record = ? AND record_revision = ?",
                         [.int(revision), .int(rowid), .int(old)])
    }

    /// Occurrences of records at their current revision that have no vector of `indexVersion`:
    /// (id, owner, text to embed), after `after`, in id order.
    public func occurrencesWaitingForVectors(owner: String?, indexVersion: IndexVersion, limit: Int, after: Int64 = 0) throws
        -> [(id: Int64, owner: String, text: String)]
    {
        // Candidates from the two indexes (no vector yet; another index version), then the checks
        // (CROSS JOIN keeps that order: the owner's index would visit every occurrence).
        return try database.query("""
            SELECT o.id, CASE WHEN o.description != '' THEN o.description ELSE o.excerpt END, o.owner
            FROM (SELECT id FROM occurrences WHERE vector IS NULL OR index_version IS NULL
                  UNION SELECT id FROM occurrences WHERE index_version < ?1
                  UNION SELECT id FROM occurrences WHERE index_version > ?1) w
            CROSS JOIN occurrences o ON o.id = w.id CROSS JOIN records r ON r.rowid = o.record
            WHERE o.record_revision = r.revision AND r.perm_patterns = 1 AND o.id > ?2 \(owner == nil ? "" : "AND o.owner = ?4")
            ORDER BY o.id LIMIT ?3
            """, [.text(indexVersion.description), .int(after), .from(limit)] + (owner.map { [.text($0)] } ?? [])) {
            ($0.int(0), $0.text(2) ?? "", $0.text(1) ?? "")
        }
    }

    public func storeOccurrenceVectors(_ items: [(id: Int64, vector: [Float])], indexVersion: IndexVersion) throws {
        let s = try database.prepare("UPDATE occurrences SET vector = ?, index_version = ? WHERE id = ?")
        for item in items {
            try s.bind([.blob(VectorBlob.encode(item.vector)), .text(indexVersion.description), .int(item.id)])
            try s.step()
        }
    }

    /// Records that allow patterns and have no occurrences at all (candidates for passage occurrences).
    public func recordsWithoutOccurrences(owner: String?) throws -> [(rowid: Int64, owner: String, id: String, revision: Int64, text: String)] {
        let ownerSQL = owner == nil ? "" : "AND r.owner = ?"
        return try database.query("""
            SELECT r.rowid, r.owner, r.id, r.revision, r.text
            FROM records_without_occurrences a CROSS JOIN records r ON r.rowid = a.record
            WHERE r.perm_patterns = 1 AND NOT EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid) \(ownerSQL)
            ORDER BY a.record
            """, owner.map { [.text($0)] } ?? []) { ($0.int(0), $0.text(1) ?? "", $0.text(2) ?? "", $0.int(3), $0.text(4) ?? "") }
    }

    /// Id, date and kind of the owner's records with at least one eligible occurrence.
    public func analysedRecords(owner: String, indexVersion: IndexVersion, includePassages: Bool) throws -> [(id: String, date: String?, kind: String?)] {
        try database.query("""
            SELECT r.id, r.date, r.kind FROM records r WHERE r.owner = ? AND EXISTS (
                SELECT 1 FROM occurrences o WHERE o.record = r.rowid AND \(Self.eligibility(includePassages: includePassages)))
            ORDER BY r.id
            """, [.text(owner), .text(indexVersion.description)]) { ($0.text(0) ?? "", $0.text(1), $0.text(2)) }
    }

    /// The named records of `owner` that have occurrences, with their current state.
    public func patternSnapshots(owner: String, recordIDs: [String]) throws -> [RecordPatternSnapshot] {
        guard !recordIDs.isEmpty else { return [] }
        // Each record's text is read once, not once per occurrence row.
        let ids = JSONWriter.string(.from(recordIDs))
        var out = try database.query("""
            SELECT r.rowid, r.id, r.revision, r.text, r.perm_patterns FROM records r
            WHERE r.owner = ? AND r.id IN (SELECT value FROM json_each(?))
              AND EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid) ORDER BY r.rowid
            """, [.text(owner), .text(ids)]) { s in
            RecordPatternSnapshot(rowid: s.int(0), id: s.text(1) ?? "", revision: s.int(2), text: s.text(3) ?? "", patterns: s.int(4) != 0, occurrences: [])
        }
        guard !out.isEmpty else { return [] }
        let position = Dictionary(uniqueKeysWithValues: out.enumerated().map { ($1.rowid, $0) })
        let rows = try database.query("""
            SELECT o.record, o.id, o.record_revision FROM occurrences o
            WHERE o.record IN (SELECT value FROM json_each(?)) ORDER BY o.record, o.id
            """, [.text(JSONWriter.string(.array(out.map { .int($0.rowid) })))]) { s in (s.int(0), s.int(1), s.int(2)) }
        for row in rows {
            if let i = position[row.0] { out[i].occurrences.append((row.1, row.2)) }
        }
        return out
    }

    /// (rowid, revision, text, patterns permission) of the named records that exist.
    public func patternRecordStates(owner: String, recordIDs: [String]) throws -> [String: (rowid: Int64, revision: Int64, text: String, patterns: Bool)] {
        guard !recordIDs.isEmpty else { return [:] }
        let rows = try database.query("""
            SELECT id, rowid, revision, text, perm_patterns FROM records WHERE owner = ? AND id IN (SELECT value FROM json_each(?))
            """, [.text(owner), .text(JSONWriter.string(.from(recordIDs)))]) { s in
            (s.text(0) ?? "", (s.int(1), s.int(2), s.text(3) ?? "", s.int(4) != 0))
        }
        return Dictionary(rows, uniquingKeysWith: { a, _ in a })
    }

    // MARK: engine state

    /// Owners with occurrences or pattern state.
    public func patternOwners() throws -> [String] {
        try database.query("SELECT owner FROM occurrences UNION SELECT owner FROM pattern_state ORDER BY 1") { $0.text(0) ?? "" }
    }

    /// The last position of the pattern input log (0 when it is empty and nothing was pruned).
    public func inputLogPosition() throws -> Int64 {
        max(try database.scalarInt("SELECT max(seq) FROM pattern_input_log") ?? 0, try inputLogPrunedUpTo())
    }

    /// The last position removed from the input log.
    public func inputLogPrunedUpTo() throws -> Int64 {
        try database.scalarInt("SELECT upto FROM pattern_input_pruned WHERE id = 1") ?? 0
    }

    /// The owner's occurrences logged after position `after` up to `upTo`, ascending, each once.
    public func loggedOccurrences(owner: String, after: Int64, upTo: Int64) throws -> [Int64] {
        try database.query("""
            SELECT DISTINCT occurrence FROM pattern_input_log WHERE owner = ? AND seq > ? AND seq <= ? ORDER BY occurrence
            """, [.text(owner), .int(after), .int(upTo)]) { $0.int(0) }
    }

    /// Removes input log entries up to `position` and records that it did.
    public func pruneInputLog(upTo position: Int64) throws {
        try database.transaction {
            try database.run("DELETE FROM pattern_input_log WHERE seq <= ?", [.int(position)])
            try database.run("UPDATE pattern_input_pruned SET upto = max(upto, ?) WHERE id = 1", [.int(position)])
        }
    }

    /// The owner's pattern revision: bumped by triggers on every write to the owner's groups, state
    /// and corrections (0 when nothing was ever written).
    public func patternRevision(owner: String) throws -> Int64 {
        try database.query("SELECT revision FROM pattern_revisions WHERE owner = ?", [.text(owner)]) { $0.int(0) }.first ?? 0
    }

    public func patternStateRow(owner: String) throws -> PatternStateRow? {
        try database.query(
            """
            SELECT owner, next_group_id, groups_version, pending_checked, settled_at, index_version, background_levels
            FROM pattern_state WHERE owner = ?
            """,
            [.text(owner)]
        ) {
            PatternStateRow(owner: $0.text(0) ?? "", nextGroupID: $0.int(1), groupsVersion: $0.int(2), pendingChecked: $0.text(3),
                            settledAt: $0.isNull(4) ? nil : $0.int(4), indexVersion: $0.text(5), backgroundLevels: $0.text(6))
        }.first
    }

    public func savePatternStateRow(_ row: PatternStateRow) throws {
        try database.run("""
            INSERT INTO pattern_state(owner, next_group_id, groups_version, pending, pending_checked, settled_at, index_version, background_levels)
            VALUES (?, ?, ?, '[]', ?, ?, ?, ?)
            ON CONFLICT(owner) DO UPDATE SET next_group_id = excluded.next_group_id,
                groups_version = excluded.groups_version, pending_checked = excluded.pending_checked, settled_at = excluded.settled_at,
                index_version = coalesce(excluded.index_version, pattern_state.index_version), background_levels = excluded.background_levels
            """, [.text(row.owner), .int(row.nextGroupID), .int(row.groupsVersion), row.pendingChecked.map { .text($0) } ?? .null,
                  row.settledAt.map { .int($0) } ?? .null, row.indexVersion.map { .text($0) } ?? .null,
                  row.backgroundLevels.map { .text($0) } ?? .null])
    }

    /// The owner's pending marks, occurrence ids ascending.
    public func pendingMarkRows(owner: String) throws -> [PendingMarkRow] {
        try database.query("SELECT \(PendingMarkRow.columns) FROM pattern_pending WHERE owner = ? ORDER BY occurrence", [.text(owner)]) {
            PendingMarkRow($0, from: 0)
        }
    }

    /// Writes the given pending marks of the owner (nil: the occurrence is no longer pending).
    /// `replacingAll`: every other mark of the owner goes first.
    public func savePendingMarks(owner: String, _ marks: [(occurrence: Int64, mark: PendingMarkRow?)], replacingAll: Bool = false) throws {
        if replacingAll { try database.run("DELETE FROM pattern_pending WHERE owner = ?", [.text(owner)]) }
        guard !marks.isEmpty else { return }
        let upsert = try database.prepare("""
            INSERT INTO pattern_pending(owner, \(PendingMarkRow.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(owner, occurrence) DO UPDATE SET evaluated_at = excluded.evaluated_at, category = excluded.category,
                checked_at = excluded.checked_at, candidates = excluded.candidates, kth_score = excluded.kth_score,
                kth_group = excluded.kth_group, stamp = excluded.stamp
            """)
        let delete = try database.prepare("DELETE FROM pattern_pending WHERE owner = ? AND occurrence = ?")
        for m in marks {
            if let mark = m.mark {
                try upsert.bind([.text(owner)] + mark.values)
                try upsert.step()
            } else if !replacingAll {
                try delete.bind([.text(owner), .int(m.occurrence)])
                try delete.step()
            }
        }
    }

    static let groupColumns = "owner, id, category, state, version, label, label_description, body, centroid"

    static func readGroup(_ s: Statement) -> GroupRow {
        var centroid: [Float]?
        if !s.isNull(8) {
            centroid = s.withBlob(8) { bytes in
                var v: [Float] = []
                v.reserveCapacity(bytes.count / 4)
                return VectorBlob.decode(bytes, dimension: bytes.count / 4, into: &v) ? v : nil
            }
        }
        return GroupRow(owner: s.text(0) ?? "", id: s.int(1), category: s.text(2) ?? "", state: s.text(3) ?? "", version: s.int(4),
                        label: s.text(5), labelDescription: s.text(6), body: s.text(7) ?? "{}", centroid: centroid)
    }

    public func groupRows(owner: String) throws -> [GroupRow] {
        try database.query("SELECT \(Self.groupColumns) FROM pattern_groups WHERE owner = ? ORDER BY id", [.text(owner)], row: Self.readGroup)
    }

    public func groupRow(owner: String, id: Int64) throws -> GroupRow? {
        try database.query("SELECT \(Self.groupColumns) FROM pattern_groups WHERE owner = ? AND id = ?", [.text(owner), .int(id)],
                           row: Self.readGroup).first
    }

    /// Writes a group. The client's label description survives only while the group keeps a label.
    public func saveGroupRow(_ row: GroupRow) throws {
        try database.run("""
            INSERT INTO pattern_groups(owner, id, category, state, version, label, label_description, body, centroid)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(owner, id) DO UPDATE SET category = excluded.category, state = excluded.state,
                version = excluded.version, label = excluded.label, body = excluded.body, centroid = excluded.centroid,
                label_description = CASE WHEN excluded.label IS NULL THEN NULL ELSE pattern_groups.label_description END
            """, [.text(row.owner), .int(row.id), .text(row.category), .text(row.state), .int(row.version), .from(row.label),
                  .from(row.labelDescription), .text(row.body), row.centroid.map { .blob(VectorBlob.encode($0)) } ?? .null])
    }

    public func setGroupLabelDescription(owner: String, id: Int64, description: String?) throws {
        try database.run("UPDATE pattern_groups SET label_description = ? WHERE owner = ? AND id = ?",
                         [.from(description), .text(owner), .int(id)])
    }

    // MARK: corrections

    /// The id the next correction gets (ids are never reused: undone corrections stay).
    public func nextCorrectionID() throws -> Int64 {
        // Theme corrections draw from the same sequence (`ThemeStore.swift`).
        max(try database.scalarInt("SELECT max(id) FROM pattern_corrections") ?? 0,
            try database.scalarInt("SELECT max(id) FROM pattern_theme_corrections") ?? 0) + 1
    }

    // MARK: status

    public func patternCounts(owner: String?, indexVersion: IndexVersion) throws -> PatternCounts {
        let ownerSQL = owner == nil ? "1" : "owner = ?"
        let args: [SQLValue] = owner.map { [.text($0)] } ?? []
        var c = PatternCounts()
        c.occurrences = Int(try database.scalarInt("SELECT count(*) FROM occurrences WHERE \(ownerSQL)", args) ?? 0)
        c.occurrencesWaiting = Int(try database.scalarInt("""
            SELECT count(*) FROM occurrences WHERE \(ownerSQL) AND (vector IS NULL OR index_version IS NULL OR index_version != ?)
            """, args + [.text(indexVersion.description)]) ?? 0)
        c.groups = Int(try database.scalarInt("SELECT count(*) FROM pattern_groups WHERE \(ownerSQL)", args) ?? 0)
        c.activeGroups = Int(try database.scalarInt("SELECT count(*) FROM pattern_groups WHERE \(ownerSQL) AND state = 'active'", args) ?? 0)
        return c
    }
}

extension RecordStore {
    /// (start, end) of the passage occurrences of a record's `revision` that have a vector of `indexVersion`.
    public func passageVectorSpans(record rowid: Int64, revision: Int64, indexVersion: IndexVersion) throws -> Set<[Int]> {
        Set(try database.query("""
            SELECT excerpt_start, excerpt_end FROM occurrences
            WHERE record = ? AND source = 'passage' AND record_revision = ? AND index_version = ? AND vector IS NOT NULL
            """, [.int(rowid), .int(revision), .text(indexVersion.description)]) { [Int($0.int(0)), Int($0.int(1))] })
    }
}
