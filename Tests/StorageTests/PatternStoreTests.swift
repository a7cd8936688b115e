import Foundation
import Testing
import KindredCore
@testable import Storage

@Suite struct PatternStoreTests {
    let version = IndexVersion(model: "m", dimension: 2)

    func occurrence(_ description: String, vector: [Float]?) -> NewOccurrence {
        NewOccurrence(source: "client", category: "person", description: description, excerpt: description, start: 0, end: 1,
                      tags: ["t"], vector: vector)
    }

    @Test func occurrencesFollowTheirRecordAndEligibility() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        _ = try store.upsert(owner: "o", records: [Record(id: "a", revision: 1, text: "x", date: "2024-01-01")], indexVersion: version)
        let a = try #require(try store.get(owner: "o", id: "a"))
        let ids = try store.insertOccurrences(owner: "o", record: a.rowid, recordID: "a", revision: 1,
                                              [occurrence("one", vector: [1, 0]), occurrence("two", vector: nil)], indexVersion: version)
        #expect(ids.count == 2)
        let eligible = try store.eligibleOccurrences(owner: "o", indexVersion: version, includePassages: true, withVectors: true)
        #expect(eligible.map(\.id) == [ids[0]])
        #expect(eligible[0].vector == [1, 0])
        #expect(eligible[0].recordDate == "2024-01-01")
        #expect(eligible[0].tags == ["t"])
        #expect(try store.occurrencesWaitingForVectors(owner: "o", indexVersion: version, limit: 10).map(\.id) == [ids[1]])
        #expect(try store.eligibleOccurrences(owner: "o", indexVersion: IndexVersion(model: "other", dimension: 2),
                                              includePassages: true, withVectors: false).isEmpty)
        _ = try store.setPermissions(owner: "o", id: "a", search: nil, patterns: false)
        #expect(try store.eligibleOccurrences(owner: "o", indexVersion: version, includePassages: true, withVectors: false).isEmpty)
        _ = try store.delete(owner: "o", ids: ["a"])
        #expect(try store.database.scalarInt("SELECT count(*) FROM occurrences") == 0)
    }

    @Test func groupRowsKeepTheLabelDescriptionOnlyWithALabel() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        var row = GroupRow(owner: "o", id: 1, category: "person", state: "active", version: 1, label: "L", labelDescription: nil, body: "{}")
        try store.saveGroupRow(row)
        try store.setGroupLabelDescription(owner: "o", id: 1, description: "d")
        row.version = 2
        try store.saveGroupRow(row)
        #expect(try store.groupRow(owner: "o", id: 1)?.labelDescription == "d")
        row.label = nil
        try store.saveGroupRow(row)
        #expect(try store.groupRow(owner: "o", id: 1)?.labelDescription == nil)
        #expect(try store.groupRow(owner: "other", id: 1) == nil)
    }

    @Test func groupCentroidsRoundTripAsFloat32Blobs() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        var row = GroupRow(owner: "o", id: 1, category: "person", state: "active", version: 1, label: nil, labelDescription: nil,
                           body: "{}", centroid: [0.25, -1.5, .leastNonzeroMagnitude])
        try store.saveGroupRow(row)
        #expect(try store.groupRow(owner: "o", id: 1)?.centroid?.map(\.bitPattern) == row.centroid!.map(\.bitPattern))
        row.centroid = nil
        try store.saveGroupRow(row)
        #expect(try store.groupRow(owner: "o", id: 1)?.centroid == nil)
        #expect(try store.groupRows(owner: "o").count == 1)
    }

    @Test func patternStateRowKeepsTheSettledAndIndexVersions() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        #expect(try store.patternStateRow(owner: "o") == nil)
        try store.savePatternStateRow(PatternStateRow(owner: "o", nextGroupID: 4, groupsVersion: 9, settledAt: 9))
        #expect(try store.patternStateRow(owner: "o") == PatternStateRow(owner: "o", nextGroupID: 4, groupsVersion: 9, settledAt: 9))
        try store.savePatternStateRow(PatternStateRow(owner: "o", nextGroupID: 5, groupsVersion: 11, settledAt: nil,
                                                      indexVersion: "m@2"))
        #expect(try store.patternStateRow(owner: "o")?.settledAt == nil)
        #expect(try store.patternStateRow(owner: "o")?.groupsVersion == 11)
        #expect(try store.patternStateRow(owner: "o")?.indexVersion == "m@2")
        // Saving without an index version (a correction, a deletion) keeps the stored one.
        try store.savePatternStateRow(PatternStateRow(owner: "o", nextGroupID: 5, groupsVersion: 12))
        #expect(try store.patternStateRow(owner: "o")?.indexVersion == "m@2")
    }

    static func mark(_ occurrence: Int64, _ evaluatedAt: Int64? = nil) -> PendingMarkRow {
        PendingMarkRow(occurrence: occurrence, evaluatedAt: evaluatedAt, category: nil, certificate: nil)
    }

    @Test func pendingMarksAreWrittenOneByOneAndBumpTheRevision() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        try store.savePendingMarks(owner: "o", [(3, Self.mark(3, 1)), (1, Self.mark(1)), (2, Self.mark(2))])
        try store.savePendingMarks(owner: "p", [(1, Self.mark(1))])
        #expect(try store.pendingMarkRows(owner: "o").map(\.occurrence) == [1, 2, 3])
        let revision = try store.patternRevision(owner: "o")
        // Changed, removed, added; the others stay.
        try store.savePendingMarks(owner: "o", [(1, Self.mark(1, 4)), (2, nil), (5, Self.mark(5))])
        #expect(try store.pendingMarkRows(owner: "o") == [Self.mark(1, 4), Self.mark(3, 1), Self.mark(5)])
        #expect(try store.patternRevision(owner: "o") > revision)
        // Replacing all: only the given marks are left, and other owners keep theirs.
        try store.savePendingMarks(owner: "o", [(7, Self.mark(7))], replacingAll: true)
        #expect(try store.pendingMarkRows(owner: "o").map(\.occurrence) == [7])
        #expect(try store.pendingMarkRows(owner: "p").map(\.occurrence) == [1])
    }

    /// Every column reads back as written: certificates with and without a K-th candidate, no
    /// candidates, numbers at the ends of their range, a category with any character.
    @Test func pendingMarkColumnsReadBackAsWritten() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        let marks = [
            PendingMarkRow(occurrence: 1, evaluatedAt: 9, category: "caf\u{e9}/\"\n", certificate: .init(
                at: 8, candidates: [3, 5, .max], kthScore: -120, kthGroup: 5, stamp: .min)),
            PendingMarkRow(occurrence: 2, evaluatedAt: .max, category: "passage", certificate: .init(
                at: 0, candidates: [], kthScore: nil, kthGroup: nil, stamp: 0)),
            PendingMarkRow(occurrence: .max, evaluatedAt: nil, category: nil, certificate: nil),
        ]
        try store.savePendingMarks(owner: "o", marks.map { ($0.occurrence, $0) })
        #expect(try store.pendingMarkRows(owner: "o") == marks)
    }

    @Test func nestedTransactionsRollBackTogether() throws {
        let dir = TempDirectory()
        let store = try RecordStore(path: dir.path("k.sqlite"))
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.database.transaction {
                _ = try store.upsert(owner: "o", records: [Record(id: "a", revision: 1, text: "x")], indexVersion: version)
                throw Boom()
            }
        }
        #expect(try store.get(owner: "o", id: "a") == nil)
    }
}
