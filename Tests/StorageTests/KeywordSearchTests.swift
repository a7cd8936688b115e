import Foundation
import Testing
import KindredCore
@testable import Storage

@Suite struct KeywordSearchTests {
    let version = IndexVersion(model: "test", dimension: 4)

    func store(_ texts: [String: String]) throws -> (TempDirectory, RecordStore) {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let records = texts.sorted { $0.key < $1.key }.map { Record(id: $0.key, revision: 1, text: $0.value) }
        _ = try store.upsert(owner: "o", records: records, indexVersion: version)
        return (dir, store)
    }

    func ids(_ store: RecordStore, _ query: String) throws -> [String] {
        let hits = try store.keywordSearch(owner: "o", query: query, filters: SearchFilters(), limit: 10)
        let rows = try store.records(rowids: hits.map(\.rowid))
        return hits.map { rows[$0.rowid]!.record.id }
    }

    @Test func stemmingMatchesOtherFormsOfAWord() throws {
        let (_, s) = try store(["flying": "I was flying over the town", "crane": "A crane by the river", "walk": "A walk in the park"])
        #expect(try ids(s, "flying") == ["flying"])
        #expect(try ids(s, "fly") == ["flying"])
        #expect(try ids(s, "cranes") == ["crane"])
        #expect(try ids(s, "Rivers") == ["crane"])
        #expect(try ids(s, "walking parks") == ["walk"])
    }

    /// Text without spaces is found by any run of two characters it holds, or by one character;
    /// words of a stemmed language by other forms of the word (migration 21).
    @Test func everyScriptIsFound() throws {
        let (_, s) = try store([
            "ja": "昨日はリアルタイム戦略ゲームを遅くまで遊んだ。",
            "zh": "东京的电车总是很拥挤。",
            "de": "Ich habe im Traum die Häuser meiner Kindheit gesehen, und alle Fenster waren offen.",
            "fr": "Je marchais dans les rues de la ville et les chevaux couraient.",
            "en": "I was flying over the town",
        ])
        func search(_ q: String, _ language: TextLanguage?) throws -> [String] {
            let hits = try s.keywordSearch(owner: "o", terms: KeywordTerms(query: q, language: language), filters: SearchFilters(), limit: 10)
            let rows = try s.records(rowids: hits.map(\.rowid))
            return hits.map { rows[$0.rowid]!.record.id }
        }
        #expect(try search("リアルタイム戦略ゲーム", .japanese) == ["ja"])
        #expect(try search("戦略", .japanese) == ["ja"])
        #expect(try search("略", .japanese) == ["ja"])
        #expect(try search("电车", .chinese) == ["zh"])
        #expect(try search("Haus", .german) == ["de"])
        #expect(try search("Fenstern", .german) == ["de"])
        #expect(try search("cheval", .french) == ["fr"])
        #expect(try search("fly", nil) == ["en"])
        let languages = try s.languageCounts(owner: "o")
        #expect(languages == [.japanese: 1, .chinese: 1, .german: 1, .french: 1, .english: 1])
        // English text is indexed as written; the others through their index text.
        #expect(try s.database.scalarInt("SELECT count(*) FROM records WHERE keyword_text IS NULL") == 1)
        try s.database.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
    }

    /// Migration 21 re-indexes a file's records in other languages and reports how far it is; its
    /// English records keep their entries; later updates and deletes keep the index whole.
    @Test func theUpgradeReindexesRecordsInOtherLanguages() throws {
        let dir = TempDirectory()
        let path = dir.path("v20.sqlite")
        do {
            let db = try Database(path: path)
            try Migrations.migrate(db, upTo: 20)
            for (i, text) in ["Rain on the roof", "東京の電車はいつも混んでいる。", "Die Häuser waren alle dunkel und leer.", ""].enumerated() {
                try db.run("INSERT INTO records(owner, id, revision, text) VALUES ('o', ?, 1, ?)", [.text("r\(i)"), .text(text)])
                if !text.isEmpty {
                    try db.run("INSERT INTO records_fts(rowid, text) VALUES (last_insert_rowid(), ?)", [.text(text)])
                }
            }
        }
        final class Lines: @unchecked Sendable { var all: [String] = [] }
        let lines = Lines()
        let s = try RecordStore(path: path, progress: { lines.all.append($0) })
        #expect(lines.all.first?.contains("indexing 3 records") == true)
        #expect(lines.all.last?.contains("3 records, 2 of them") == true)
        func search(_ q: String, _ language: TextLanguage?) throws -> [String] {
            let hits = try s.keywordSearch(owner: "o", terms: KeywordTerms(query: q, language: language), filters: SearchFilters(), limit: 10)
            let rows = try s.records(rowids: hits.map(\.rowid))
            return hits.map { rows[$0.rowid]!.record.id }
        }
        #expect(try search("電車", .japanese) == ["r1"])
        #expect(try search("Haus", .german) == ["r2"])
        #expect(try search("roofs", nil) == ["r0"])
        _ = try s.upsert(owner: "o", records: [Record(id: "r2", revision: 2, text: "Das Haus am See.")], indexVersion: version)
        #expect(try search("Häuser", .german) == ["r2"])
        _ = try s.delete(owner: "o", ids: ["r1", "r2"])
        #expect(try search("電車", .japanese).isEmpty)
        try s.database.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
        #expect(try s.database.integrityCheck() == "ok")
    }

    /// Records with empty text stay out of FTS5 (migration 15), through inserts, updates to and from
    /// empty text and deletes.
    @Test func recordsWithEmptyTextStayOutOfTheKeywordIndex() throws {
        let (_, s) = try store(["a": "Rain on the roof", "b": "", "c": ""])
        func indexed() throws -> Int64? { try s.database.scalarInt("SELECT count(*) FROM records_fts_docsize") }
        #expect(try indexed() == 1)
        _ = try s.upsert(owner: "o", records: [Record(id: "b", revision: 2, text: "Rain in the night")], indexVersion: version)
        #expect(try indexed() == 2)
        #expect(try ids(s, "rain").sorted() == ["a", "b"])
        _ = try s.upsert(owner: "o", records: [Record(id: "a", revision: 2, text: "")], indexVersion: version)
        #expect(try indexed() == 1)
        #expect(try ids(s, "rain") == ["b"])
        #expect(try ids(s, "roof").isEmpty)
        _ = try s.delete(owner: "o", ids: ["a", "b", "c"])
        #expect(try indexed() == 0)
        try s.database.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
        #expect(try s.database.integrityCheck() == "ok")
    }

    /// A file written before migration 15 keeps its empty-text records in FTS5; the upgrade takes
    /// them out and keeps every record with text findable.
    @Test func theUpgradeTakesEmptyTextsOutOfTheKeywordIndex() throws {
        let dir = TempDirectory()
        let path = dir.path("v14.sqlite")
        do {
            let db = try Database(path: path)
            try Migrations.migrate(db, upTo: 14)
            for (i, text) in ["Rain on the roof", "", "", "Snow on the hills"].enumerated() {
                try db.run("INSERT INTO records(owner, id, revision, text) VALUES ('o', ?, 1, ?)", [.text("r\(i)"), .text(text)])
            }
            #expect(try db.scalarInt("SELECT count(*) FROM records_fts_docsize") == 4)
        }
        let s = try RecordStore(path: path)
        #expect(try s.schemaVersionInFile() == RecordStore.schemaVersion)
        #expect(try s.database.scalarInt("SELECT count(*) FROM records_fts_docsize") == 2)
        #expect(try ids(s, "rain") == ["r0"])
        #expect(try ids(s, "hills") == ["r3"])
        _ = try s.delete(owner: "o", ids: ["r1", "r0"])
        #expect(try ids(s, "rain").isEmpty)
        try s.database.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
        #expect(try s.database.integrityCheck() == "ok")
    }

    @Test func diacriticsAreIgnored() throws {
        let (_, s) = try store(["cafe": "Coffee at the café", "other": "Tea at home"])
        #expect(try ids(s, "cafe") == ["cafe"])
        #expect(try ids(s, "CAFÉ") == ["cafe"])
    }

    @Test func stopwordsNeverMatchOnTheirOwn() throws {
        let (_, s) = try store(["a": "The dream where I could fly", "b": "Where could I have put the keys", "c": "the the the"])
        #expect(try ids(s, "the").isEmpty)
        #expect(try ids(s, "where could I").isEmpty)
        #expect(try ids(s, "The").isEmpty)
        #expect(try ids(s, "where could I fly") == ["a"])
    }

    @Test func aRecordNeedsSomeInformativeTermsAndMoreRankHigher() throws {
        let (_, s) = try store([
            "both": "I missed the train at the station",
            "train": "The train was late",
            "station": "Waiting at a station",
            "none": "A walk in the park",
        ])
        let found = try ids(s, "the dream where I missed a train station")
        #expect(found.first == "both")
        #expect(Set(found) == ["both", "train", "station"])
    }

    @Test(arguments: ["\"", "\"\"", "fly*", "*", "NEAR(fly crane)", "NEAR(", "-fly", "text:fly", "^fly", "fly AND", "OR", "NOT crane",
                      "(fly", "fly)", "{text}: fly", "\"fly\" \"", "'; DROP TABLE records; --", "fly + crane", "\u{0}fly"])
    func ftsSyntaxInTheQueryNeverErrors(query: String) throws {
        let (_, s) = try store(["flying": "I was flying", "crane": "A crane, NEAR the river; not AND or"])
        let found = try ids(s, query)
        if KeywordTerms(query: query).terms.contains("fly") { #expect(found.contains("flying")) }
        #expect(try s.get(owner: "o", id: "crane") != nil)
    }

    @Test func theTermBoundIsApplied() throws {
        let (_, s) = try store(["early": "alpha", "late": "omega"])
        let query = "alpha " + (1...40).map { "filler\($0)" }.joined(separator: " ") + " omega"
        let bounded = try s.keywordSearch(owner: "o", terms: KeywordTerms(query: query, maxTerms: 32), filters: SearchFilters(), limit: 10)
        #expect(bounded.count == 1)
        #expect(try s.keywordSearch(owner: "o", terms: KeywordTerms(query: query), filters: SearchFilters(), limit: 10).count == 2)
    }
}

@Suite struct KeywordMigrationTests {
    /// A file written by schema version 5 (keyword index without stemming) is re-indexed by migration 8.
    @Test func upgradesAVersion5Database() throws {
        let fixture = try #require(Bundle.module.url(forResource: "keyword-v5", withExtension: "sqlite", subdirectory: "Fixtures"))
        let dir = TempDirectory()
        let path = dir.path("v5.sqlite")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        do {
            let before = try Database(path: path)
            #expect(try before.scalarInt("SELECT max(version) FROM schema_migrations") == 5)
            // Before the upgrade "fly" does not find "flying".
            #expect(try before.scalarInt("SELECT count(*) FROM records_fts WHERE records_fts MATCH '\"fly\"'") == 0)
        }
        let store = try RecordStore(path: path)
        #expect(try store.schemaVersionInFile() == RecordStore.schemaVersion)
        let sql = try store.database.query("SELECT sql FROM sqlite_master WHERE name = 'records_fts'") { $0.text(0) ?? "" }
        #expect(sql.count == 1 && sql[0].contains("porter unicode61 remove_diacritics 2"))
        // Deletes and text edits keep the index by trigger; a new record's entry is the store's (migration 17).
        #expect(try store.database.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'records_fts_%' ORDER BY name") {
            $0.text(0) ?? ""
        } == ["records_fts_delete", "records_fts_update"])

        func ids(_ owner: String, _ query: String) throws -> [String] {
            let hits = try store.keywordSearch(owner: owner, query: query, filters: SearchFilters(), limit: 10)
            let rows = try store.records(rowids: hits.map(\.rowid))
            return hits.map { rows[$0.rowid]!.record.id }
        }
        #expect(try ids("alice", "fly") == ["fly-1"])
        #expect(try ids("alice", "cranes") == ["crane-1"])
        #expect(try ids("alice", "cafe trains") == ["cafe-1"])
        #expect(try ids("alice", "the") == [])
        #expect(try ids("bob", "flies") == ["fly-1"])
        #expect(try ids("bob", "rivers") == ["fly-1"])
        // The triggers keep the new index in step with later writes.
        let v = IndexVersion(model: "test", dimension: 4)
        _ = try store.upsert(owner: "alice", records: [Record(id: "fly-1", revision: 2, text: "Swimming in a lake")], indexVersion: v)
        #expect(try ids("alice", "fly") == [])
        #expect(try ids("alice", "swim") == ["fly-1"])
        _ = try store.delete(owner: "alice", ids: ["crane-1"])
        #expect(try ids("alice", "crane") == [])
        try store.database.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
        #expect(try store.database.integrityCheck() == "ok")
    }
}
