import Testing
import KindredCore
@testable import Storage

@Suite struct UnchangedUpsertTests {
    let version = IndexVersion(model: "test", dimension: 4)

    @Test func recordsThatChangeNothingAreFoundWithoutWriting() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [Record(id: "a", revision: 2, text: "café"), Record(id: "b", revision: 1, text: "b")], indexVersion: version)
        let changes = try store.database.scalarInt("SELECT total_changes()")
        let out = try store.outcomesWithoutChange(owner: "o", records: [
            Record(id: "a", revision: 2, text: "café"),
            Record(id: "b", revision: 1, text: "other"),
            Record(id: "c", revision: 1, text: "new"),
            Record(id: "a", revision: 1, text: "old"),
        ])
        #expect(try store.database.scalarInt("SELECT total_changes()") == changes)
        #expect(out["c"] == nil)
        #expect(out["b"]?.status == .conflict)
        // The last record named "a" wins in the dictionary: revision 1 < 2 is stale.
        #expect(out["a"]?.status == .stale)
        #expect(try store.outcomesWithoutChange(owner: "o", records: [Record(id: "a", revision: 2, text: "café")])["a"]?.status == .unchanged)
        #expect(try store.outcomesWithoutChange(owner: "o", records: [Record(id: "a", revision: 3, text: "café")]).isEmpty)
        #expect(try store.outcomesWithoutChange(owner: "p", records: [Record(id: "a", revision: 2, text: "café")]).isEmpty)
        // Bytes decide: the same text in decomposed form is other text.
        #expect(try store.outcomesWithoutChange(owner: "o", records: [Record(id: "a", revision: 2, text: "cafe\u{301}")])["a"]?.status == .conflict)
    }
}
