import Foundation
import Testing
import KindredCore
import KindredTestSupport
@testable import Storage

/// Vectors stored in blocks (migration 16): every reader gives back what was written, slots are
/// reused and freed, and the layout's invariant (each slot named by one row or listed free) holds
/// after every kind of change. Checked against a plain dictionary of what each record should hold.
@Suite struct VectorBlockTests {
    let version = IndexVersion(model: "test", dimension: 4)

    func vector(_ seed: Int, dimension: Int = 4) -> [Float] {
        (0..<dimension).map { Float(seed * 10 + $0) + 0.25 }
    }

    func record(_ id: String, _ rev: Int64, _ text: String = "", vector: [Float]?) -> Record {
        Record(id: id, revision: rev, text: text, vector: vector)
    }

    /// Every slot of every block is named by exactly one `vectors` row or listed free, never both.
    func checkInvariant(_ s: RecordStore) throws {
        let db = s.database
        let blocks = try db.scalarInt("SELECT count(*) FROM vector_blocks") ?? 0
        let named = try db.scalarInt("SELECT count(*) FROM vectors WHERE block != 0") ?? 0
        let free = try db.scalarInt("SELECT count(*) FROM vector_free_slots") ?? 0
        #expect(named + free == blocks * Int64(VectorBlocks.slots))
        #expect(try db.scalarInt("SELECT count(*) FROM (SELECT block, slot FROM vectors WHERE block != 0 GROUP BY block, slot HAVING count(*) > 1)") == 0)
        #expect(try db.scalarInt("""
            SELECT count(*) FROM vectors v JOIN vector_free_slots f ON f.block = v.block AND f.slot = v.slot
            """) == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM vectors v LEFT JOIN vector_blocks b ON b.block = v.block WHERE v.block != 0 AND b.block IS NULL") == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM vector_blocks WHERE length(data) != width * ?", [.from(VectorBlocks.slots)]) == 0)
        #expect(try db.integrityCheck() == "ok")
    }

    /// What the store gives for `expected`'s ids, by every reader of vectors.
    func checkReaders(_ s: RecordStore, owner: String, expected: [String: [Float]]) throws {
        var rowids: [String: Int64] = [:]
        for (id, v) in expected {
            let stored = try #require(try s.get(owner: owner, id: id))
            rowids[id] = stored.rowid
            #expect(try s.vector(rowid: stored.rowid, indexVersion: version) == v, "vector(rowid:) of \(id)")
        }
        let ids = expected.keys.sorted()
        let many = try s.vectors(rowids: ids.map { rowids[$0]! }, indexVersion: version)
        #expect(many == ids.map { expected[$0] }, "vectors(rowids:)")
        var streamed: [Int64: [Float]] = [:]
        try s.forEachSearchableVector(indexVersion: version) { rowid, o, bytes in
            var v: [Float] = []
            #expect(VectorBlob.decode(bytes, dimension: version.dimension, into: &v))
            if o == owner { streamed[rowid] = v }
        }
        #expect(streamed == Dictionary(uniqueKeysWithValues: expected.map { (rowids[$0.key]!, $0.value) }), "forEachSearchableVector")
    }

    @Test func partlyFilledBlocksAreFilledByTheNextBatch() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        var expected: [String: [Float]] = [:]
        // 3 batches of 21: each leaves its last block part full for the next one to fill.
        for b in 0..<3 {
            let batch = (0..<21).map { i in record("r\(b)-\(i)", 1, vector: vector(b * 100 + i)) }
            _ = try s.upsert(owner: "o", records: batch, indexVersion: version)
            for r in batch { expected[r.id] = r.vector }
            try checkInvariant(s)
        }
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks") == 4)  // 63 vectors
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_free_slots") == 1)
        try checkReaders(s, owner: "o", expected: expected)
    }

    @Test func aNewVectorOverwritesItsSlotAndADeleteFreesIt() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        _ = try s.upsert(owner: "o", records: (0..<5).map { record("r\($0)", 1, vector: vector($0)) }, indexVersion: version)
        let place = { (id: String) in try s.database.query("""
            SELECT v.block, v.slot FROM vectors v JOIN records r ON r.rowid = v.record WHERE r.id = ?
            """, [.text(id)]) { [$0.int(0), $0.int(1)] }.first }
        let before = try place("r2")
        _ = try s.upsert(owner: "o", records: [record("r2", 2, vector: vector(42))], indexVersion: version)
        #expect(try place("r2") == before)
        _ = try s.delete(owner: "o", ids: ["r2"])
        try checkInvariant(s)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_free_slots WHERE block = ? AND slot = ?",
                                         [.int(before![0]), .int(before![1])]) == 1)
        // The next new vector takes the freed slot.
        _ = try s.upsert(owner: "o", records: [record("new", 1, vector: vector(7))], indexVersion: version)
        #expect(try place("new") == before)
        try checkReaders(s, owner: "o", expected: ["r0": vector(0), "r1": vector(1), "r3": vector(3), "r4": vector(4), "new": vector(7)])
        // Deleting every record releases the block.
        _ = try s.delete(owner: "o", ids: ["r0", "r1", "r3", "r4", "new"])
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks") == 0)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_free_slots") == 0)
        try checkInvariant(s)
    }

    @Test func aRecordNamedTwiceInOneBatchKeepsItsLastVector() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        let out = try s.upsert(owner: "o", records: [
            record("a", 1, vector: vector(1)), record("b", 1, vector: vector(2)), record("a", 2, vector: vector(3)),
        ], indexVersion: version)
        #expect(out.map(\.status) == [.created, .created, .updated])
        try checkInvariant(s)
        try checkReaders(s, owner: "o", expected: ["a": vector(3), "b": vector(2)])
    }

    /// Model vectors: stored into blocks, dropped with their slots when the text changes or the
    /// model's vectors are dropped, and moved into blocks when a rebuild completes.
    @Test func modelVectorsAndRebuildsFollowTheBlocks() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        _ = try s.upsert(owner: "o", records: (0..<20).map { record("r\($0)", 1, "text \($0)", vector: nil) }, indexVersion: version)
        let work = try s.pendingEmbeddings(indexVersion: version, limit: 100)
        #expect(work.count == 20)
        let written = try s.storeModelVectors(work.map { ($0.rowid, $0.revision, vector(Int($0.rowid))) }, indexVersion: version)
        #expect(written.count == 20)
        try checkInvariant(s)
        var expected = Dictionary(uniqueKeysWithValues: work.map { w in ("r\(w.rowid - 1)", vector(Int(w.rowid))) })
        try checkReaders(s, owner: "o", expected: expected)
        // A new text without a vector drops the model vector and frees its slot.
        _ = try s.upsert(owner: "o", records: [record("r0", 2, "other text", vector: nil)], indexVersion: version)
        expected["r0"] = nil
        try checkInvariant(s)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_free_slots") == Int64(2 * VectorBlocks.slots - 19))
        try checkReaders(s, owner: "o", expected: expected)

        // A rebuild to 8 dimensions stages per row, then moves into blocks of the new width.
        let wide = IndexVersion(model: "wide", dimension: 8)
        let all = try s.rebuildCandidates(indexVersion: wide, everything: true, limit: 100, after: 0)
        _ = try s.stageVectors(all.map { ($0.rowid, $0.revision, vector(Int($0.rowid), dimension: 8)) }, indexVersion: wide)
        let done = try s.completeRebuild(indexVersion: wide)
        #expect(done.moved == 20)
        try checkInvariant(s)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks WHERE width != 32") == 0)
        for w in all {
            #expect(try s.vector(rowid: w.rowid, indexVersion: wide) == vector(Int(w.rowid), dimension: 8))
        }
        #expect(try s.dropAllModelVectors() == 20)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks") == 0)
        try checkInvariant(s)
    }

    /// Random upserts, vector changes, text changes and deletes, checked after each step against a
    /// dictionary of what every record should hold.
    @Test func randomChangesMatchAPlainReference() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        var rng = SeededGenerator(seed: 16)
        var expected: [String: [Float]] = [:]
        var revisions: [String: Int64] = [:]
        for step in 0..<60 {
            var batch: [Record] = []
            var batchIDs = Set<String>()
            for _ in 0..<Int(rng.next() % 40) {
                let id = "r\(rng.next() % 90)"
                guard batchIDs.insert(id).inserted else { continue }
                let rev = (revisions[id] ?? 0) + 1
                revisions[id] = rev
                let withVector = rng.next() % 5 != 0
                let v = withVector ? vector(step * 1000 + Int(rng.next() % 1000)) : nil
                batch.append(record(id, rev, withVector ? "" : "text \(step)", vector: v))
                expected[id] = v
            }
            _ = try s.upsert(owner: "o", records: batch, indexVersion: version)
            if step % 3 == 2 {
                let gone = (0..<8).map { _ in "r\(rng.next() % 90)" }
                _ = try s.delete(owner: "o", ids: gone)
                for id in gone { expected[id] = nil; revisions[id] = nil }
                // A deleted id comes back only above its tombstone's revision.
                for id in gone { revisions[id] = 100 + Int64(step) }
            }
            try checkInvariant(s)
            let present = try s.database.query("SELECT id FROM records WHERE owner = 'o'") { $0.text(0) ?? "" }
            try checkReaders(s, owner: "o", expected: expected.filter { present.contains($0.key) })
        }
    }

    /// In a new file (8 KiB pages) a block of 16 vectors at d = 384 takes about its own bytes: three
    /// overflow pages and a short cell, not a page and a half of slack as 16 KiB pages would give.
    @Test func blocksFillTheirPagesAtTheDefaultDimension() throws {
        let dir = TempDirectory()
        let s = try RecordStore(path: dir.path("k.sqlite"))
        #expect(try s.database.scalarInt("PRAGMA page_size") == 8192)
        let wide = IndexVersion(model: "test", dimension: 384)
        let records = (0..<1600).map { i in record("v\(i)", 1, vector: (0..<384).map { Float(i + $0) }) }
        _ = try s.upsert(owner: "o", records: records, indexVersion: wide)
        try checkInvariant(s)
        let pages = try s.database.scalarInt("SELECT sum(pgsize) FROM dbstat WHERE name = 'vector_blocks'") ?? 0
        let bytes = Int64(1600 * 384 * 4)
        #expect(pages >= bytes && pages < bytes + bytes / 20, "vector_blocks takes \(pages) bytes for \(bytes)")
        #expect(try s.vectors(rowids: [1, 800, 1600], indexVersion: wide) == [0, 799, 1599].map { i in (0..<384).map { Float(i + $0) } })
    }

    /// A file at migration 15 keeps one vector per row; the upgrade moves every one into blocks
    /// (several widths, record order), drops the column, and the store reads them all back.
    @Test func theUpgradeFrom15MovesEveryVectorIntoBlocks() throws {
        let dir = TempDirectory()
        let path = dir.path("v15.sqlite")
        var expected: [Int64: [Float]] = [:]
        do {
            let db = try Database(path: path)
            try Migrations.migrate(db, upTo: 15)
            for i in 0..<37 {
                try db.run("INSERT INTO records(owner, id, revision, text) VALUES ('o', ?, 1, '')", [.text("r\(i)")])
                let rowid = db.lastInsertRowID
                // Every fifth vector is of another model with 8 dimensions.
                let (v, model) = i % 5 == 0 ? (vector(i, dimension: 8), "1:8:other") : (vector(i), version.description)
                try db.run("INSERT INTO vectors(record, index_version, revision, source, data) VALUES (?, ?, 1, 'client', ?)",
                           [.int(rowid), .text(model), .blob(VectorBlob.encode(v))])
                expected[rowid] = v
            }
            // Bytes that are not whole floats read as no vector, before and after.
            try db.run("INSERT INTO records(owner, id, revision, text) VALUES ('o', 'torn', 1, '')")
            try db.run("INSERT INTO vectors(record, index_version, revision, source, data) VALUES (?, ?, 1, 'client', x'010203')",
                       [.int(db.lastInsertRowID), .text(version.description)])
        }
        let s = try RecordStore(path: path)
        #expect(try s.schemaVersionInFile() == RecordStore.schemaVersion)
        #expect(try s.database.query("SELECT name FROM pragma_table_info('vectors')") { $0.text(0) ?? "" }.contains("data") == false)
        try checkInvariant(s)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks WHERE width = 16") == 2)  // 29 of 4 dimensions
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks WHERE width = 32") == 1)  // 8 of 8
        for (rowid, v) in expected where v.count == 4 {
            #expect(try s.vector(rowid: rowid, indexVersion: version) == v)
        }
        let torn = try #require(try s.get(owner: "o", id: "torn"))
        #expect(try s.vector(rowid: torn.rowid, indexVersion: version) == nil)
        // The moved file takes writes: a new vector fills a free slot of its width.
        _ = try s.upsert(owner: "o", records: [record("after", 1, vector: vector(99))], indexVersion: version)
        try checkInvariant(s)
        #expect(try s.database.scalarInt("SELECT count(*) FROM vector_blocks") == 3)
    }
}
