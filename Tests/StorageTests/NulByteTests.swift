import Foundation
import Testing
import KindredCore
@testable import Storage

/// A NUL inside a string is data: it never ends the string, truncates what is stored, or makes one
/// owner or id stand for another.
@Suite struct NulByteTests {
    let version = IndexVersion(model: "m", dimension: 2)

    func record(_ id: String, _ text: String, tags: [String] = [], kind: String? = "note") -> Record {
        Record(id: id, revision: 1, text: text, kind: kind, date: "2024-05-01", tags: tags, metadata: ["mood": "c\u{0}d"])
    }

    @Test func textWithANulRoundTripsWhole() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [record("a", "c\u{0}d", tags: ["x\u{0}y"], kind: "k\u{0}ind")], indexVersion: version)
        let stored = try #require(try store.get(owner: "o", id: "a"))
        #expect(stored.record.text == "c\u{0}d")
        #expect(stored.record.text.utf8.count == 3)
        #expect(stored.record.tags == ["x\u{0}y"])
        #expect(stored.record.kind == "k\u{0}ind")
        #expect(stored.record.metadata["mood"] == .string("c\u{0}d"))
        #expect(try store.database.scalarInt("SELECT length(CAST(text AS BLOB)) FROM records") == 3)
        // The same text again is unchanged; the text cut at its NUL is a different text.
        #expect(try store.upsert(owner: "o", records: [record("a", "c\u{0}d")], indexVersion: version).map(\.status) == [.unchanged])
        #expect(try store.upsert(owner: "o", records: [record("a", "c")], indexVersion: version).map(\.status) == [.conflict])
    }

    @Test func anOwnerWithANulSeesNothingOfTheOwnerBeforeIt() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "alice", records: [record("diary-1", "the train left the station")], indexVersion: version)
        let alice = try #require(try store.get(owner: "alice", id: "diary-1"))
        for mallory in ["alice\u{0}x", "alice\u{0}", "\u{0}"] {
            #expect(try store.get(owner: mallory, id: "diary-1") == nil)
            #expect(try store.keywordSearch(owner: mallory, query: "train", filters: SearchFilters(), limit: 10).isEmpty)
            #expect(try store.filteredRowids(owner: mallory, filters: SearchFilters()).isEmpty)
            #expect(try store.status(owner: mallory, indexVersion: version).records == 0)
            #expect(try store.setPermissions(owner: mallory, id: "diary-1", search: false, patterns: false) == nil)
            let del = try store.delete(owner: mallory, ids: ["diary-1"])
            #expect(del.deleted.isEmpty && del.missing == ["diary-1"])
        }
        // An id with a NUL is another id too.
        #expect(try store.get(owner: "alice", id: "diary-1\u{0}zzz") == nil)
        #expect(try store.delete(owner: "alice", ids: ["diary-1\u{0}zzz"]).deleted.isEmpty)
        let after = try #require(try store.get(owner: "alice", id: "diary-1"))
        #expect(after.record == alice.record)
        #expect(try store.keywordSearch(owner: "alice", query: "train", filters: SearchFilters(), limit: 10).map(\.rowid) == [alice.rowid])
    }

    @Test func ownersThatDifferOnlyAfterANulAreKeptApart() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "\u{0}", records: [record("same", "nul owner")], indexVersion: version)
        _ = try store.upsert(owner: "", records: [record("same", "empty owner")], indexVersion: version)
        _ = try store.upsert(owner: "a\u{0}b", records: [record("same", "first")], indexVersion: version)
        _ = try store.upsert(owner: "a\u{0}c", records: [record("same", "second")], indexVersion: version)
        #expect(try store.get(owner: "\u{0}", id: "same")?.record.text == "nul owner")
        #expect(try store.get(owner: "", id: "same")?.record.text == "empty owner")
        #expect(try store.get(owner: "a\u{0}b", id: "same")?.record.text == "first")
        #expect(try store.get(owner: "a\u{0}c", id: "same")?.record.text == "second")
        #expect(try store.get(owner: "a", id: "same") == nil)
        #expect(try Set(store.database.query("SELECT owner FROM records") { $0.text(0) ?? "?" }) == ["\u{0}", "", "a\u{0}b", "a\u{0}c"])
    }

    @Test func occurrenceTextWithANulRoundTripsWhole() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [record("a", "x\u{0}y")], indexVersion: version)
        let a = try #require(try store.get(owner: "o", id: "a"))
        let occurrence = NewOccurrence(source: "client", category: "pla\u{0}ce", description: "d\u{0}e", excerpt: "x\u{0}y",
                                       start: 0, end: 3, tags: ["t\u{0}u"], vector: [1, 0])
        let ids = try store.insertOccurrences(owner: "o", record: a.rowid, recordID: "a", revision: 1, [occurrence], indexVersion: version)
        let read = try #require(try store.occurrences(owner: "o", ids: ids).first)
        #expect(read.category == "pla\u{0}ce")
        #expect(read.description == "d\u{0}e")
        #expect(read.excerpt == "x\u{0}y")
        #expect(read.tags == ["t\u{0}u"])
        #expect(try store.occurrences(owner: "o\u{0}", ids: ids).isEmpty)
    }

    @Test func emptyStringsBindAsEmptyTextNotNull() throws {
        let dir = TempDirectory()
        let db = try Database(path: dir.path("k.sqlite"))
        try db.execute("CREATE TABLE t(s TEXT, b BLOB)")
        try db.run("INSERT INTO t(s, b) VALUES (?, ?)", [.text(""), .blob([])])
        #expect(try db.scalarInt("SELECT count(*) FROM t WHERE s = '' AND b = x''") == 1)
    }

    @Test func sqlWithANulOrASecondStatementIsRefused() throws {
        let dir = TempDirectory()
        let db = try Database(path: dir.path("k.sqlite"))
        try db.execute("CREATE TABLE t(x)")
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (1)\u{0}; DROP TABLE t") }
        #expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)") }
        #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (1)\u{0}; DROP TABLE t") }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
        try db.run("INSERT INTO t VALUES (3);  \n")
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
        #expect(throws: SQLiteError.self) { try Database(path: dir.path("k.sqlite") + "\u{0}.other") }
    }
}
