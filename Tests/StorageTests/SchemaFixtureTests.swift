import Foundation
import Testing
import KindredCore
@testable import Storage

/// Files written by the released code of schema versions 2 to 5, 16 and 21 (`Fixtures/schema-v*.sqlite`,
/// made with `scripts/make-schema-fixture.py` from the commit that released the version; version 1's
/// is `RecordStoreTests.migratesTheVersion1Fixture`'s) upgrade to the
/// current schema whole, and the frozen migrations give a new file exactly the schema they gave.
@Suite struct SchemaFixtureTests {
    static let version = IndexVersion(model: "all-MiniLM-L6-v2", dimension: 384)

    /// Fixture name, the schema version it was written at, and whether it holds pattern rows.
    static let fixtures: [(name: String, version: Int, patterns: Bool)] = [
        ("schema-v2", 2, false),
        ("schema-v3", 3, true),
        ("schema-v4", 4, true),
        ("schema-v5-c1f27a8", 5, true),  // migration 5 before records_without_vectors
        ("schema-v5-ad51044", 5, true),  // migration 5 with the first trigger names
        ("schema-v5", 5, true),
        ("schema-v16", 16, true),  // vectors in blocks; the last schema with insert triggers (migration 17)
        ("schema-v21", 21, true),  // the last schema with pending marks as the engine's JSON (migration 22)
    ]

    static func copy(_ name: String, to dir: TempDirectory) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "sqlite", subdirectory: "Fixtures"))
        let path = dir.path("\(name).sqlite")
        try FileManager.default.copyItem(atPath: url.path, toPath: path)
        return path
    }

    /// Every schema object but SQLite's own, as (type, name, SQL), sorted.
    static func schema(_ db: Database) throws -> [String] {
        try db.query("""
            SELECT type, name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name
            """) { "\($0.text(0) ?? "") \($0.text(1) ?? ""): \($0.text(2) ?? "")" }
    }

    @Test(arguments: fixtures.filter { $0.name != "schema-v5-c1f27a8" && $0.name != "schema-v5-ad51044" }.map(\.name))
    func theFrozenMigrationsGiveTheSchemaTheReleasedCodeGave(name: String) throws {
        let fixture = try #require(Self.fixtures.first { $0.name == name })
        let dir = TempDirectory()
        let old = try Database(path: try Self.copy(name, to: dir))
        #expect(try old.scalarInt("SELECT max(version) FROM schema_migrations") == Int64(fixture.version))
        let fresh = try Database(path: dir.path("fresh.sqlite"))
        try Migrations.migrate(fresh, upTo: fixture.version)
        #expect(try Self.schema(fresh) == Self.schema(old))
    }

    @Test(arguments: fixtures.map(\.name))
    func anOldFileUpgradesWhole(name: String) throws {
        let fixture = try #require(Self.fixtures.first { $0.name == name })
        let dir = TempDirectory()
        let path = try Self.copy(name, to: dir)
        let before = try Database(path: path)
        let occurrencesBefore = fixture.patterns ? try before.scalarInt("SELECT count(*) FROM occurrences") ?? 0 : 0
        let groupsBefore = fixture.patterns ? try before.scalarInt("SELECT count(*) FROM pattern_groups") ?? 0 : 0
        // Pending marks: in the state's JSON before migration 14, one row each since.
        let marksBefore = !fixture.patterns ? 0 : fixture.version >= 14
            ? try before.scalarInt("SELECT count(*) FROM pattern_pending") ?? 0
            : try before.scalarInt("SELECT sum(json_array_length(pending)) / 2 FROM pattern_state") ?? 0
        // Alice's marks (the first only, before migration 14).
        let marks = !fixture.patterns ? [] : fixture.version >= 14
            ? try before.query("SELECT occurrence, mark FROM pattern_pending WHERE owner = 'alice' ORDER BY occurrence") {
                ($0.int(0), $0.text(1) ?? "")
            }
            : try before.query("SELECT json_extract(pending, '$[0]'), json_extract(pending, '$[1]') FROM pattern_state WHERE owner = 'alice'") {
                ($0.int(0), $0.text(1) ?? "")
            }
        let pageSizeBefore = try before.scalarInt("PRAGMA page_size")
        before.close()

        let store = try RecordStore(path: path)
        #expect(try store.schemaVersionInFile() == RecordStore.schemaVersion)
        #expect(try store.database.scalarInt("PRAGMA user_version") == Int64(RecordStore.schemaVersion))
        let fresh = try RecordStore(path: dir.path("fresh.sqlite"))
        #expect(try Self.schema(store.database) == Self.schema(fresh.database))
        #expect(try store.database.integrityCheck() == "ok")
        // A file keeps the page size it was made with (new files get 8 KiB pages).
        #expect(try store.database.scalarInt("PRAGMA page_size") == pageSizeBefore)
        #expect(try fresh.database.scalarInt("PRAGMA page_size") == Int64(Database.newFilePageSize))

        // Records, whole.
        let r1 = try #require(try store.get(owner: "alice", id: "r1"))
        #expect(r1.record.revision == 2)
        #expect(r1.record.text == "I missed the train again and watched it leave the station without me. Again.")
        #expect(r1.record.kind == "dream" && r1.record.date == "2024-05-01" && r1.record.tags == ["travel"])
        #expect(r1.record.metadata == ["mood": "anxious", "n": 0])
        #expect(r1.vectorVersion == Self.version.description && r1.vectorSource == "client")
        #expect(try store.vector(rowid: r1.rowid, indexVersion: Self.version)?.count == 384)
        #expect(try store.get(owner: "alice", id: "gone") == nil)
        #expect(try store.get(owner: "alice", id: "hidden")?.record.permissions.search == false)
        #expect(try store.get(owner: "bob", id: "r1")?.record.text == "Bob swam across a cold river.")
        #expect(try store.status(owner: "alice", indexVersion: Self.version).records == 6)

        // Keyword search over the rows the file already held (the hidden record stays out).
        let hits = try store.keywordSearch(owner: "alice", query: "train", filters: SearchFilters(), limit: 10)
        let ids = try store.records(rowids: hits.map(\.rowid)).values.map(\.record.id).sorted()
        #expect(ids == ["r1", "r2", "r3", "r4"])
        #expect(try store.keywordSearch(owner: "bob", query: "river", filters: SearchFilters(), limit: 10).count == 1)

        // The trigger-kept tables describe the rows: every record has a client vector, and the
        // records without occurrences are exactly those.
        #expect(try store.pendingEmbeddingCount(indexVersion: Self.version) == 0)
        #expect(try store.pendingEmbeddings(indexVersion: Self.version, limit: 10).isEmpty)
        let without = try store.recordsWithoutOccurrences(owner: nil).map { "\($0.owner)/\($0.id)" }.sorted()
        let expected = try store.database.query("""
            SELECT owner || '/' || id FROM records r WHERE NOT EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid) ORDER BY 1
            """) { $0.text(0) ?? "" }
        #expect(without == expected)
        #expect(try store.database.scalarInt("""
            SELECT count(*) FROM records_without_occurrences w WHERE NOT EXISTS (SELECT 1 FROM records r WHERE r.rowid = w.record)
            """) == 0)

        if fixture.patterns {
            // Pattern rows kept: occurrences, the group of the three similar records, the correction.
            #expect(try store.database.scalarInt("SELECT count(*) FROM occurrences") == occurrencesBefore)
            #expect(occurrencesBefore == 7 && groupsBefore == 1)
            let groups = try store.groupRows(owner: "alice")
            #expect(groups.count == 1 && groups.first?.category == "passage")
            #expect(try store.correctionRows(owner: "alice").count == 1)
            #expect(try store.patternStateRow(owner: "alice") != nil)
            // Pending marks moved from the state's JSON to one row each (migration 14), unchanged.
            #expect(marksBefore > 0)
            #expect(try store.database.scalarInt("SELECT count(*) FROM pattern_pending") == marksBefore)
            #expect(try store.database.scalarInt("SELECT count(*) FROM pattern_state WHERE pending != '[]'") == 0)
            // And from its JSON to columns (migration 22), field by field.
            #expect(!marks.isEmpty)
            let rows = try store.pendingMarkRows(owner: "alice")
            for (occurrence, text) in marks {
                let row = try #require(rows.first { $0.occurrence == occurrence })
                let json = try JSONParser.parse(text)
                #expect(row.evaluatedAt == json["evaluatedAt"]?.intValue)
                #expect(row.category == json["scope"]?["category"]?.stringValue)
                #expect(row.certificate?.at == json["certificate"]?["at"]?.intValue)
                #expect(row.certificate?.candidates == json["certificate"]?["candidates"]?.arrayValue?.compactMap(\.intValue))
                #expect(row.certificate?.kthScore == json["certificate"]?["kthScore"]?.intValue)
                #expect(row.certificate?.stamp == json["certificate"]?["stamp"]?.intValue)
            }
            if fixture.version >= 21 { #expect(rows.contains { $0.certificate != nil }) }
            let passages = try store.eligibleOccurrences(owner: "alice", indexVersion: Self.version, includePassages: true, withVectors: true)
            #expect(passages.filter { $0.source == "passage" }.allSatisfy { $0.vector?.count == 384 })
            #expect(try store.patternRevision(owner: "alice") > 0)
        } else {
            #expect(try store.recordsWithoutOccurrences(owner: "alice").count == 6)
        }

        // And the upgraded file keeps working: a write goes through every trigger.
        _ = try store.upsert(owner: "alice", records: [Record(id: "new", revision: 1, text: "a new train dream")], indexVersion: Self.version)
        #expect(try store.pendingEmbeddingCount(indexVersion: Self.version) == 1)
        _ = try store.delete(owner: "alice", ids: ["r2"])
        #expect(try store.keywordSearch(owner: "alice", query: "train", filters: SearchFilters(), limit: 10).count == 4)
        // A new record with a client vector (its rows written by the store since migration 17):
        // found by keyword, waits for nothing, and the codes file's stamp goes.
        try store.stampCodesFile(token: "t", indexVersion: Self.version)
        _ = try store.upsert(owner: "alice", records: [Record(id: "vec", revision: 1, text: "a train with its vector",
                                                              vector: [Float](repeating: 0.05, count: 384))], indexVersion: Self.version)
        #expect(try store.keywordSearch(owner: "alice", query: "train", filters: SearchFilters(), limit: 10).count == 5)
        #expect(try store.pendingEmbeddingCount(indexVersion: Self.version) == 1)
        #expect(try store.takeCodesFileToken(indexVersion: Self.version) == nil)
        func ints(_ sql: String) throws -> [Int64] { try store.database.query(sql) { $0.int(0) } }
        #expect(try ints("SELECT record FROM records_without_vectors ORDER BY 1")
                == ints("SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.record = r.rowid) ORDER BY 1"))
        #expect(try ints("SELECT record FROM records_without_occurrences ORDER BY 1")
                == ints("SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid) ORDER BY 1"))
        #expect(try ints("SELECT id FROM records_fts_docsize ORDER BY 1") == ints("SELECT rowid FROM records WHERE text != '' ORDER BY 1"))
        #expect(try store.database.integrityCheck() == "ok")
    }
}
