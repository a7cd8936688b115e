import Foundation
import Testing
import KindredCore
@testable import Storage

/// A deleted record leaves a tombstone: replaying the revision it was deleted at (or an older one)
/// is stale and writes nothing; a higher revision recreates it; purging drops old tombstones.
@Suite struct TombstoneTests {
    let version = IndexVersion(model: "m", dimension: 2)

    func record(_ id: String, _ rev: Int64, _ text: String = "text") -> Record {
        Record(id: id, revision: rev, text: text, kind: "note", date: "2024-05-01")
    }

    @Test func aReplayAtOrBelowTheDeletedRevisionIsStaleAndWritesNothing() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [record("a", 1), record("b", 1)], indexVersion: version)
        _ = try store.upsert(owner: "o", records: [record("a", 3, "third")], indexVersion: version)
        let del = try store.delete(owner: "o", ids: ["a"], deletedAt: "2024-06-01T10:00:00.000Z")
        #expect(del.deleted.map(\.id) == ["a"])
        #expect(try store.tombstone(owner: "o", id: "a") == Tombstone(owner: "o", id: "a", revision: 3, deletedAt: "2024-06-01T10:00:00.000Z"))
        #expect(try store.tombstone(owner: "other", id: "a") == nil)
        for rev: Int64 in [1, 2, 3] {
            let out = try store.upsert(owner: "o", records: [record("a", rev, "replayed")], indexVersion: version)
            #expect(out == [UpsertOutcome(id: "a", revision: 3, status: .stale, rowid: nil, deleted: true)])
        }
        #expect(try store.get(owner: "o", id: "a") == nil)
        #expect(try store.database.scalarInt("SELECT count(*) FROM records WHERE id = 'a'") == 0)
        #expect(try store.keywordSearch(owner: "o", query: "replayed", filters: SearchFilters(), limit: 10).isEmpty)
        // Another owner's record with the same id is not touched by the tombstone.
        #expect(try store.upsert(owner: "p", records: [record("a", 1)], indexVersion: version).map(\.status) == [.created])
        // A delete of a missing id leaves no tombstone.
        #expect(try store.delete(owner: "o", ids: ["never"]).missing == ["never"])
        #expect(try store.tombstone(owner: "o", id: "never") == nil)
    }

    @Test func aHigherRevisionRecreatesTheRecordAndRemovesTheTombstone() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [record("a", 2)], indexVersion: version)
        _ = try store.delete(owner: "o", ids: ["a"])
        let out = try store.upsert(owner: "o", records: [record("a", 3, "back")], indexVersion: version)
        #expect(out.map(\.status) == [.created] && out.first?.deleted == false)
        #expect(try store.get(owner: "o", id: "a")?.record.text == "back")
        #expect(try store.tombstone(owner: "o", id: "a") == nil)
        // Deleted again at 3: the tombstone moves to 3, and 3 is now stale.
        _ = try store.delete(owner: "o", ids: ["a"])
        #expect(try store.tombstone(owner: "o", id: "a")?.revision == 3)
        #expect(try store.upsert(owner: "o", records: [record("a", 3, "back")], indexVersion: version).map(\.status) == [.stale])
    }

    @Test func aRecreationThatFailsLeavesTheTombstone() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [record("a", 1)], indexVersion: version)
        _ = try store.delete(owner: "o", ids: ["a"])
        try store.database.execute("CREATE TRIGGER refuse BEFORE INSERT ON records WHEN new.text = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END")
        #expect(throws: SQLiteError.self) { try store.upsert(owner: "o", records: [record("a", 2, "boom")], indexVersion: version) }
        #expect(try store.tombstone(owner: "o", id: "a")?.revision == 1)
    }

    @Test func purgeRemovesTombstonesOlderThanTheDateOnly() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [record("old", 1), record("new", 1)], indexVersion: version)
        _ = try store.upsert(owner: "p", records: [record("old", 1)], indexVersion: version)
        _ = try store.delete(owner: "o", ids: ["old"], deletedAt: "2024-01-31T23:59:59.999Z")
        _ = try store.delete(owner: "o", ids: ["new"], deletedAt: "2024-02-01T00:00:00.000Z")
        _ = try store.delete(owner: "p", ids: ["old"], deletedAt: "2024-01-15T08:00:00.000Z")
        #expect(try store.tombstoneCount(owner: nil) == 3)
        // A date is its midnight UTC; an offset is honoured.
        #expect(try store.purgeTombstones(owner: "o", before: "2024-01-01") == 0)
        #expect(try store.purgeTombstones(owner: "o", before: "2024-02-01T01:00:00+01:00") == 1)
        #expect(try store.tombstone(owner: "o", id: "old") == nil)
        #expect(try store.tombstone(owner: "o", id: "new") != nil)
        #expect(try store.tombstone(owner: "p", id: "old") != nil)
        #expect(try store.purgeTombstones(owner: nil, before: "2024-03-01") == 2)
        #expect(try store.tombstoneCount(owner: nil) == 0)
        // Purged: an old revision is a new record again.
        #expect(try store.upsert(owner: "o", records: [record("new", 1)], indexVersion: version).map(\.status) == [.created])
        #expect(throws: InvalidInstant.self) { try store.purgeTombstones(owner: nil, before: "yesterday") }
    }

    @Test func tombstonesSurviveReopenAndTheDefaultTimeIsNow() throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        do {
            let store = try RecordStore(path: path)
            _ = try store.upsert(owner: "o", records: [record("a", 4)], indexVersion: version)
            _ = try store.delete(owner: "o", ids: ["a"])
        }
        let store = try RecordStore(path: path)
        let t = try #require(try store.tombstone(owner: "o", id: "a"))
        #expect(t.revision == 4)
        #expect(try store.database.scalarInt("SELECT abs(julianday(?) - julianday('now')) * 86400 < 60", [.text(t.deletedAt)]) == 1)
        #expect(t.deletedAt.hasSuffix("Z") && t.deletedAt.count == 24)
    }
}
