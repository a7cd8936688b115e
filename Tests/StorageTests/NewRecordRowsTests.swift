import Foundation
import Testing
import KindredCore
import KindredTestSupport
@testable import Storage

/// Since migration 17 the writers, not insert triggers, write a new record's keyword entry and its
/// rows in the superset tables, and take the codes file's stamp away when vectors are written.
/// After random batches of every kind of write, each of those tables is compared with what a plain
/// scan of the records, vectors and occurrences gives.
@Suite struct NewRecordRowsTests {
    let version = IndexVersion(model: "test", dimension: 4)
    let other = IndexVersion(model: "other", dimension: 4)

    /// The tables against a recomputation from the rows they describe.
    func checkTables(_ s: RecordStore, texts: [String: String], _ step: String) throws {
        let db = s.database
        func ints(_ sql: String, _ arguments: [SQLValue] = []) throws -> [Int64] { try db.query(sql, arguments) { $0.int(0) } }
        #expect(try ints("SELECT record FROM records_without_vectors ORDER BY 1")
                == ints("SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.record = r.rowid) ORDER BY 1"),
                "records_without_vectors after \(step)")
        #expect(try ints("SELECT record FROM records_without_occurrences ORDER BY 1")
                == ints("SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid) ORDER BY 1"),
                "records_without_occurrences after \(step)")
        // The keyword index holds exactly the records with text, each under its own words.
        #expect(try ints("SELECT id FROM records_fts_docsize ORDER BY 1") == ints("SELECT rowid FROM records WHERE text != '' ORDER BY 1"),
                "keyword rows after \(step)")
        #expect(try db.query("SELECT id, text FROM records WHERE owner = 'o'") { ($0.text(0) ?? "", $0.text(1) ?? "") }
                    .reduce(into: [String: String]()) { $0[$1.0] = $1.1 } == texts, "texts after \(step)")
        for (id, text) in texts where !text.isEmpty {
            let word = String(text.split(separator: " ").last!)
            let hits = try s.keywordSearch(owner: "o", query: word, filters: SearchFilters(), limit: 50)
            let found = try s.records(rowids: hits.map(\.rowid)).values.map(\.record.id)
            #expect(found == [id], "keyword \(word) after \(step)")
        }
        // What the embedder and pattern discovery read from them.
        #expect(try s.recordsWithoutVectors(limit: 1000).map(\.rowid)
                == ints("SELECT rowid FROM records r WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.record = r.rowid) ORDER BY 1"),
                "recordsWithoutVectors after \(step)")
        #expect(try s.pendingEmbeddings(indexVersion: version, limit: 1000).map(\.rowid) == ints("""
            SELECT r.rowid FROM records r LEFT JOIN vectors v ON v.record = r.rowid
            WHERE v.record IS NULL OR v.index_version != ? ORDER BY 1
            """, [.text(version.description)]), "pendingEmbeddings after \(step)")
        #expect(try s.recordsWithoutOccurrences(owner: nil).map(\.rowid) == ints("""
            SELECT rowid FROM records r WHERE perm_patterns = 1 AND NOT EXISTS (SELECT 1 FROM occurrences o WHERE o.record = r.rowid) ORDER BY 1
            """), "recordsWithoutOccurrences after \(step)")
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomWritesKeepEveryTableAsAScanWouldFindIt(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        var texts: [String: String] = [:]
        var revisions: [String: Int64] = [:]
        var tombstones: [String: Int64] = [:]
        var word = 0
        func vector() -> [Float] { (0..<4).map { _ in Float.random(in: -1...1, using: &rng) } }
        for step in 0..<80 {
            try s.stampCodesFile(token: "t", indexVersion: version)
            var wroteVectors = false
            let what: String
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                // A batch of new and edited records, with and without text and vectors, an id
                // sometimes twice, now and then a stale revision.
                var batch: [Record] = []
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let id = "r\(Int.random(in: 0..<30, using: &rng))"
                    let known = batch.last { $0.id == id }?.revision ?? revisions[id] ?? tombstones[id] ?? 0
                    let stale = known > 0 && Int.random(in: 0..<8, using: &rng) == 0
                    word += 1
                    let text = Bool.random(using: &rng) ? "" : "dream word\(word)"
                    let v: [Float]? = Bool.random(using: &rng) ? vector() : nil
                    batch.append(Record(id: id, revision: stale ? known : known + 1, text: text, vector: v))
                }
                let outcomes = try s.upsert(owner: "o", records: batch, indexVersion: version)
                for (r, o) in zip(batch, outcomes) where o.status == .created || o.status == .updated {
                    texts[r.id] = r.text
                    revisions[r.id] = r.revision
                    tombstones[r.id] = nil
                    if r.vector != nil { wroteVectors = true }
                }
                what = "upsert"
            case 5:
                let ids = (0..<Int.random(in: 1...3, using: &rng)).map { _ in "r\(Int.random(in: 0..<30, using: &rng))" }
                for d in try s.delete(owner: "o", ids: ids).deleted {
                    tombstones[d.id] = revisions[d.id]
                    texts[d.id] = nil
                    revisions[d.id] = nil
                }
                what = "delete"
            case 6:
                // The embedder: model vectors for some waiting records, of this model or another.
                let work = try s.pendingEmbeddings(indexVersion: version, limit: 5)
                let model = Bool.random(using: &rng) ? version : other
                let stored = try s.storeModelVectors(work.map { ($0.rowid, $0.revision, vector()) }, indexVersion: model)
                wroteVectors = !stored.isEmpty
                what = "model vectors"
            case 7:
                // Pattern discovery: an occurrence added to a record, or one taken away.
                let records = try s.database.query("SELECT rowid, id, revision FROM records ORDER BY rowid") { ($0.int(0), $0.text(1) ?? "", $0.int(2)) }
                if let r = records.randomElement(using: &rng), Bool.random(using: &rng) {
                    _ = try s.insertOccurrences(owner: "o", record: r.0, recordID: r.1, revision: r.2, [
                        NewOccurrence(source: "client", category: "c", description: "d", excerpt: "x", start: 0, end: 1, tags: [], vector: nil)
                    ], indexVersion: version)
                } else if let occurrence = try s.database.query("SELECT id FROM occurrences ORDER BY id", row: { $0.int(0) }).randomElement(using: &rng) {
                    try s.deleteOccurrences([occurrence])
                }
                what = "occurrences"
            case 8:
                _ = try s.dropModelVectors(except: version)
                what = "model vectors dropped"
            default:
                // index/rebuild to the same version: staged vectors moved in, other versions dropped.
                let work = try s.rebuildCandidates(indexVersion: version, everything: false, limit: 6, after: 0)
                _ = try s.stageVectors(work.map { ($0.rowid, $0.revision, vector()) }, indexVersion: version)
                let done = try s.completeRebuild(indexVersion: version)
                wroteVectors = done.moved > 0
                what = "rebuild"
            }
            try checkTables(s, texts: texts, "\(what) at step \(step)")
            if wroteVectors {
                #expect(try s.takeCodesFileToken(indexVersion: version) == nil, "stamp after \(what) at step \(step)")
            }
        }
        #expect(try s.database.integrityCheck() == "ok")
    }

    /// A batch of new records with client vectors writes no row of records_without_vectors, and
    /// one of records_without_occurrences per record; a record without text has no keyword row.
    @Test func aBatchOfNewRecordsWithVectorsWritesOnlyWhatItMust() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        let batch = (0..<100).map { Record(id: "v\($0)", revision: 1, text: $0 % 10 == 0 ? "t\($0)" : "", vector: [1, 0, 0, Float($0)]) }
        try s.stampCodesFile(token: "t", indexVersion: version)
        _ = try s.upsert(owner: "o", records: batch, indexVersion: version)
        #expect(try s.database.scalarInt("SELECT count(*) FROM records_without_vectors") == 0)
        #expect(try s.database.scalarInt("SELECT count(*) FROM records_without_occurrences") == 100)
        #expect(try s.database.scalarInt("SELECT count(*) FROM records_fts_docsize") == 10)
        #expect(try s.takeCodesFileToken(indexVersion: version) == nil)
        // Records without a vector wait for the embedder; the stamp stays.
        try s.stampCodesFile(token: "t", indexVersion: version)
        _ = try s.upsert(owner: "o", records: [Record(id: "w", revision: 1, text: "waits")], indexVersion: version)
        #expect(try s.recordsWithoutVectors(limit: 10).count == 1)
        #expect(try s.takeCodesFileToken(indexVersion: version) == "t")
    }
}
