import Foundation
import Testing
import KindredCore
@testable import Storage

@Suite struct RecordStoreTests {
    let version = IndexVersion(model: "test", dimension: 4)

    func record(_ id: String, _ rev: Int64, _ text: String, vector: [Float]? = nil) -> Record {
        Record(id: id, revision: rev, text: text, kind: "note", date: "2024-05-01", tags: ["a"], metadata: ["mood": "calm"], vector: vector)
    }

    @Test func upsertStatusesFollowRevisions() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let first = try store.upsert(owner: "o", records: [record("a", 2, "hello")], indexVersion: version)
        #expect(first.map(\.status) == [.created])
        let again = try store.upsert(owner: "o", records: [
            record("a", 2, "hello"), record("b", 1, "new"),
        ], indexVersion: version)
        #expect(again.map(\.status) == [.unchanged, .created])
        #expect(try store.upsert(owner: "o", records: [record("a", 1, "older")], indexVersion: version).map(\.status) == [.stale])
        #expect(try store.upsert(owner: "o", records: [record("a", 2, "different")], indexVersion: version).map(\.status) == [.conflict])
        #expect(try store.upsert(owner: "o", records: [record("a", 3, "newer")], indexVersion: version).map(\.status) == [.updated])
        let stored = try #require(try store.get(owner: "o", id: "a"))
        #expect(stored.record.text == "newer")
        #expect(stored.record.revision == 3)
        #expect(stored.record.metadata["mood"] == .string("calm"))
        // Stale and conflict changed nothing.
        #expect(try store.get(owner: "o", id: "b")?.record.text == "new")
    }

    @Test func ownersAreIsolated() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "alice", records: [record("same", 1, "alice's text")], indexVersion: version)
        _ = try store.upsert(owner: "bob", records: [record("same", 1, "bob's text")], indexVersion: version)
        #expect(try store.get(owner: "alice", id: "same")?.record.text == "alice's text")
        #expect(try store.get(owner: "bob", id: "same")?.record.text == "bob's text")
        let del = try store.delete(owner: "alice", ids: ["same", "nope"])
        #expect(del.deleted.map(\.id) == ["same"])
        #expect(del.missing == ["nope"])
        #expect(try store.get(owner: "bob", id: "same") != nil)
        #expect(try store.keywordSearch(owner: "alice", query: "text", filters: SearchFilters(), limit: 10).isEmpty)
        #expect(try store.keywordSearch(owner: "bob", query: "text", filters: SearchFilters(), limit: 10).count == 1)
    }

    @Test func dataSurvivesReopen() throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        do {
            let store = try RecordStore(path: path)
            _ = try store.upsert(owner: "o", records: [record("a", 1, "persisted", vector: [1, 0, 0, 0])], indexVersion: version)
        }
        let reopened = try RecordStore(path: path)
        #expect(try reopened.get(owner: "o", id: "a")?.record.text == "persisted")
        #expect(try reopened.vector(rowid: 1, indexVersion: version) == [1, 0, 0, 0])
        #expect(try reopened.database.integrityCheck() == "ok")
    }

    /// The rows the vector index re-scores: current vectors, else staged ones of the record's revision.
    @Test func vectorsOfManyRowidsReadCurrentThenStagedRows() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let a = try #require(try store.upsert(owner: "o", records: [record("a", 1, "one", vector: [1, 0, 0, 0])], indexVersion: version).first?.rowid)
        let b = try #require(try store.upsert(owner: "o", records: [record("b", 1, "two")], indexVersion: version).first?.rowid)
        let c = try #require(try store.upsert(owner: "o", records: [record("c", 1, "three")], indexVersion: version).first?.rowid)
        #expect(try store.vectors(rowids: [a, b, 999], indexVersion: version) == [[1, 0, 0, 0], nil, nil])
        _ = try store.stageVectors([(b, 1, [0, 0.5, 0, 0]), (c, 7, [0, 0, 1, 0])], indexVersion: version)
        // c's staged vector is for another revision.
        #expect(try store.vectors(rowids: [b, a, c], indexVersion: version) == [[0, 0.5, 0, 0], [1, 0, 0, 0], nil])
        #expect(try store.vectors(rowids: [a], indexVersion: IndexVersion(model: "other", dimension: 4)) == [nil])
    }

    /// The codes file's stamp is taken once, only for its index version, and any change to what the
    /// vector index holds removes it — from this connection or another one.
    @Test func codesFileStampGoesWithAnyChangeToTheIndexedRows() throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        let store = try RecordStore(path: path)
        let a = try #require(try store.upsert(owner: "o", records: [record("a", 1, "one", vector: [1, 0, 0, 0])], indexVersion: version).first?.rowid)
        #expect(try store.takeCodesFileToken(indexVersion: version) == nil)
        try store.stampCodesFile(token: "t1", indexVersion: version)
        #expect(try store.takeCodesFileToken(indexVersion: IndexVersion(model: "other", dimension: 4)) == nil)
        #expect(try store.takeCodesFileToken(indexVersion: version) == nil)  // taken by the look above
        try store.stampCodesFile(token: "t2", indexVersion: version)
        #expect(try store.takeCodesFileToken(indexVersion: version) == "t2")
        #expect(try store.takeCodesFileToken(indexVersion: version) == nil)

        let changes: [(String, () throws -> Void)] = [
            ("new vector", { _ = try store.upsert(owner: "o", records: [self.record("b", 1, "two", vector: [0, 1, 0, 0])], indexVersion: self.version) }),
            ("vector replaced", { _ = try store.upsert(owner: "o", records: [self.record("a", 2, "one", vector: [0, 0, 1, 0])], indexVersion: self.version) }),
            ("search permission", { try store.database.run("UPDATE records SET perm_search = 0 WHERE rowid = ?", [.int(a)]) }),
            ("staged vector", { _ = try store.stageVectors([(a, 2, [0, 0, 0, 1])], indexVersion: self.version) }),
            ("record deleted", { _ = try store.delete(owner: "o", ids: ["b"]) }),
            ("another connection", {
                let other = try RecordStore(path: path)
                try other.database.run("DELETE FROM vectors WHERE record = ?", [.int(a)])
            }),
        ]
        for (what, change) in changes {
            try store.stampCodesFile(token: "t", indexVersion: version)
            try change()
            #expect(try store.takeCodesFileToken(indexVersion: version) == nil, "\(what)")
        }
        // A change elsewhere leaves it.
        try store.stampCodesFile(token: "t3", indexVersion: version)
        _ = try store.upsert(owner: "o", records: [record("c", 1, "no vector")], indexVersion: version)
        #expect(try store.takeCodesFileToken(indexVersion: version) == "t3")
    }

    @Test func editingTextDropsTheModelVectorButKeepsItForMetadataEdits() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let rowid = try #require(try store.upsert(owner: "o", records: [record("a", 1, "text")], indexVersion: version).first?.rowid)
        #expect(try store.pendingEmbeddings(indexVersion: version, limit: 10).map(\.rowid) == [rowid])
        #expect(try store.storeModelVectors([(rowid, 1, [0, 1, 0, 0])], indexVersion: version) == [rowid])
        #expect(try store.pendingEmbeddings(indexVersion: version, limit: 10).isEmpty)
        var same = record("a", 2, "text")
        same.tags = ["b"]
        _ = try store.upsert(owner: "o", records: [same], indexVersion: version)
        #expect(try store.vector(rowid: rowid, indexVersion: version) == [0, 1, 0, 0])
        _ = try store.upsert(owner: "o", records: [record("a", 3, "changed text")], indexVersion: version)
        #expect(try store.vector(rowid: rowid, indexVersion: version) == nil)
        // A vector computed for an old revision is not stored.
        #expect(try store.storeModelVectors([(rowid, 2, [0, 0, 1, 0])], indexVersion: version).isEmpty)
    }

    /// The embedder's and the passages' look-ups start from trigger-kept tables and indexes; they
    /// must find exactly what a scan of every record finds, through inserts, text edits, deletions,
    /// vectors of another model and occurrences coming and going.
    @Test func indexedLookUpsFindWhatAScanFinds() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let other = IndexVersion(model: "other-model", dimension: 4)
        func scanWaiting() throws -> [Int64] {
            try store.database.query("""
                SELECT r.rowid FROM records r LEFT JOIN vectors v ON v.record = r.rowid
                WHERE v.record IS NULL OR v.index_version != ? ORDER BY r.rowid
                """, [.text(version.description)]) { $0.int(0) }
        }
        func scanWithoutOccurrences() throws -> [Int64] {
            try store.database.query("""
                SELECT rowid FROM records r WHERE perm_patterns = 1 AND NOT EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid)
                ORDER BY rowid
                """) { $0.int(0) }
        }
        func check(_ step: String) throws {
            let waiting = try store.pendingEmbeddings(indexVersion: version, limit: 100).map(\.rowid)
            #expect(waiting == (try scanWaiting()), "waiting after \(step)")
            #expect(try store.pendingEmbeddingCount(indexVersion: version) == waiting.count, "count after \(step)")
            #expect(try store.recordsWithoutOccurrences(owner: nil).map(\.rowid) == (try scanWithoutOccurrences()), "no occurrences after \(step)")
            let otherVersions = try store.database.scalarInt("""
                SELECT count(*) FROM records r JOIN vectors v ON v.record = r.rowid
                WHERE r.owner = 'o' AND r.perm_search = 1 AND v.index_version != ?
                """, [.text(version.description)]) ?? -1
            #expect(try store.searchableOfOtherVersions(owner: "o", indexVersion: version) == Int(otherVersions), "other versions after \(step)")
        }
        let rows = try store.upsert(owner: "o", records: (1...6).map { record("r\($0)", 1, "text \($0)") }, indexVersion: version).compactMap(\.rowid)
        try check("inserts")
        _ = try store.storeModelVectors([(rows[0], 1, [1, 0, 0, 0]), (rows[1], 1, [0, 1, 0, 0])], indexVersion: version)
        _ = try store.storeModelVectors([(rows[2], 1, [0, 0, 1, 0])], indexVersion: other)
        try check("vectors of two models")
        _ = try store.upsert(owner: "o", records: [record("r1", 2, "edited")], indexVersion: version)
        try check("a text edit")
        let ids = try store.insertOccurrences(owner: "o", record: rows[3], recordID: "r4", revision: 1, [
            NewOccurrence(source: "client", category: "c", description: "d", excerpt: "text", start: 0, end: 4, tags: [], vector: nil)
        ], indexVersion: version)
        try check("an occurrence")
        try store.database.run("DELETE FROM occurrences WHERE id = ?", [.int(ids[0])])
        try check("its deletion")
        _ = try store.delete(owner: "o", ids: ["r2", "r5"])
        try check("record deletions")
        _ = try store.storeModelVectors([(rows[3], 1, [0, 0, 0, 1])], indexVersion: other)
        #expect(try store.searchableOfOtherVersions(owner: "o", indexVersion: version) == 2)
        #expect(try store.searchableOfOtherVersions(owner: "someone else", indexVersion: version) == 0)
        try check("another vector of the other model")
    }

    @Test func filtersSelectByKindTagDateAndMetadata() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let rs = [
            Record(id: "1", revision: 1, text: "x", kind: "dream", date: "2024-05-01T08:00:00Z", tags: ["a", "b"], metadata: ["mood": "calm", "n": 1]),
            Record(id: "2", revision: 1, text: "x", kind: "note", date: "2024-06-01", tags: ["b"], metadata: ["mood": "tense"]),
            Record(id: "3", revision: 1, text: "x", kind: "dream", date: nil, tags: [], metadata: ["lucid": true]),
        ]
        let rowids = try store.upsert(owner: "o", records: rs, indexVersion: version).map { $0.rowid! }
        func ids(_ f: SearchFilters) throws -> Set<Int64> { try store.filteredRowids(owner: "o", filters: f) }
        var f = SearchFilters()
        f.kinds = ["dream"]
        #expect(try ids(f) == [rowids[0], rowids[2]])
        f = SearchFilters(); f.tags = ["a", "b"]; f.tagsMode = .all
        #expect(try ids(f) == [rowids[0]])
        f.tagsMode = .any
        #expect(try ids(f) == [rowids[0], rowids[1]])
        f = SearchFilters(); f.from = "2024-05-01"; f.to = "2024-05-01"
        #expect(try ids(f) == [rowids[0]])
        f = SearchFilters(); f.metadata = ["mood": "tense"]
        #expect(try ids(f) == [rowids[1]])
        f = SearchFilters(); f.metadata = ["lucid": true]
        #expect(try ids(f) == [rowids[2]])
        f = SearchFilters(); f.metadata = ["n": 1]
        #expect(try ids(f) == [rowids[0]])
        _ = try store.setPermissions(owner: "o", id: "1", search: false, patterns: nil)
        #expect(try ids(SearchFilters()) == [rowids[1], rowids[2]])
    }

    @Test func keywordSearchRanksWithBM25() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [
            record("train", 1, "I missed the train again, the train left the station"),
            record("walk", 1, "A walk in the park"),
            record("station", 1, "Waiting at a station"),
        ], indexVersion: version)
        let hits = try store.keywordSearch(owner: "o", query: "train station?", filters: SearchFilters(), limit: 10)
        let rows = try store.records(rowids: hits.map(\.rowid))
        #expect(hits.map { rows[$0.rowid]!.record.id } == ["train", "station"])
        #expect(try store.keywordSearch(owner: "o", query: "\"); DROP TABLE records; --", filters: SearchFilters(), limit: 10).isEmpty)
        #expect(try store.get(owner: "o", id: "walk") != nil)
    }
}

@Suite struct MigrationTests {
    /// A file written by schema version 1 (before the keyword index) opens, migrates and keeps its data.
    @Test func migratesTheVersion1Fixture() throws {
        let fixture = try #require(Bundle.module.url(forResource: "schema-v1", withExtension: "sqlite", subdirectory: "Fixtures"))
        let dir = TempDirectory()
        let path = dir.path("old.sqlite")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        let store = try RecordStore(path: path)
        #expect(try store.schemaVersionInFile() == RecordStore.schemaVersion)
        #expect(try store.database.scalarInt("PRAGMA user_version") == Int64(RecordStore.schemaVersion))
        let alice = try #require(try store.get(owner: "alice", id: "r1"))
        #expect(alice.record.revision == 2)
        #expect(alice.record.tags == ["travel"])
        #expect(alice.vectorVersion == "all-MiniLM-L6-v2@384")
        // The keyword index was built from the rows already in the file.
        let hits = try store.keywordSearch(owner: "alice", query: "train", filters: SearchFilters(), limit: 5)
        #expect(hits.map(\.rowid) == [alice.rowid])
        #expect(try store.keywordSearch(owner: "bob", query: "river", filters: SearchFilters(), limit: 5).count == 1)
        // Records that predate occurrences are found as needing passage occurrences (migration 5).
        #expect(try store.recordsWithoutOccurrences(owner: "alice").map(\.id).contains("r1"))
        #expect(try store.database.integrityCheck() == "ok")
    }

    @Test func migrationsAreRecordedAndIdempotent() throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        _ = try RecordStore(path: path)
        let again = try Database(path: path)
        #expect(try Migrations.migrate(again).isEmpty)
        #expect(try again.query("SELECT version FROM schema_migrations ORDER BY version") { $0.int(0) } == Migrations.all.map { Int64($0.version) })
    }

    @Test func aFailingMigrationLeavesNothingHalfDone() throws {
        let dir = TempDirectory()
        let db = try Database(path: dir.path("k.sqlite"))
        try Migrations.migrate(db, upTo: 1)
        try db.execute("CREATE TABLE records_fts(x)")  // makes migration 2 fail
        #expect(throws: SQLiteError.self) { try Migrations.migrate(db) }
        #expect(try db.scalarInt("SELECT max(version) FROM schema_migrations") == 1)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'records_fts_insert'") == 0)
    }
}

@Suite struct VectorBlobTests {
    @Test func roundTripsLittleEndian() {
        let v: [Float] = [1, -2.5, .leastNonzeroMagnitude, 3.4e38]
        let bytes = VectorBlob.encode(v)
        #expect(Array(bytes[0..<4]) == [0x00, 0x00, 0x80, 0x3F])
        var out: [Float] = []
        let ok = bytes.withUnsafeBytes { VectorBlob.decode($0, dimension: 4, into: &out) }
        #expect(ok)
        #expect(out == v)
        var wrong: [Float] = []
        #expect(!bytes.withUnsafeBytes { VectorBlob.decode($0, dimension: 3, into: &wrong) })
    }
}

@Suite struct DatabaseCloseTests {
    @Test func closedConnectionRefusesWorkAndTheFileIsWhole() throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        let store = try RecordStore(path: path)
        _ = try store.upsert(owner: "o", records: [Record(id: "a", revision: 1, text: "kept")], indexVersion: IndexVersion(model: "m", dimension: 2))
        try store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        store.database.close()
        store.database.close()
        #expect(throws: SQLiteError.self) { try store.get(owner: "o", id: "a") }
        // The last connection to close folds the log into the file and removes it.
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int
        #expect(wal == nil || wal == 0)
        let reopened = try RecordStore(path: path)
        #expect(try reopened.get(owner: "o", id: "a")?.record.text == "kept")
    }
}
