import Foundation
import Testing
import Grouping
import KindredCore
import JSONRPC
import Storage
@testable import Service

/// The service keeps each owner's pattern state and eligible occurrences between calls, checked
/// against the store's pattern revision and brought up to date from its input log. What it hands
/// the engine must always equal what a fresh read of the file gives.
@Suite struct PatternCacheTests {
    /// What the service loads (through its copies) and what the file holds (read inside a
    /// transaction, where no copy is used or kept), compared.
    static func expectCurrent(_ f: PatternFixture, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (kept, fresh) = try f.service.withWriter { store in
            (try f.service.loadOwnerPatterns(store, owner: "o", withVectors: true),
             try store.database.transaction { try f.service.loadOwnerPatterns(store, owner: "o", withVectors: true) })
        }
        #expect(kept.state == fresh.state, "state after \(step)", sourceLocation: sourceLocation)
        #expect(kept.occurrences == fresh.occurrences, "occurrences after \(step)", sourceLocation: sourceLocation)
        #expect(kept.labelDescriptions == fresh.labelDescriptions, "label descriptions after \(step)", sourceLocation: sourceLocation)
        #expect(kept.stateIndexVersion == fresh.stateIndexVersion, "index version after \(step)", sourceLocation: sourceLocation)
    }

    @Test func copiesStayCurrentThroughEveryKindOfWrite() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        try f.record("d1", "dog 1", category: "animal")
        try f.refresh()
        try Self.expectCurrent(f, "the first refresh")
        try f.record("t4", "teacher 4")
        try Self.expectCurrent(f, "a new record")
        try f.refresh()
        try Self.expectCurrent(f, "a refresh placing it")
        let text = try #require(try f.call("records/get", ["owner": "o", "id": "t2"])["record"]?["text"]?.stringValue)
        try f.upsert("t2", rev: 2, text: text, date: "2024-06-01")
        try Self.expectCurrent(f, "a new revision with a new date")
        try f.call("records/setPermissions", ["owner": "o", "id": "t3", "permissions": ["patterns": false]])
        try Self.expectCurrent(f, "patterns permission off")
        try f.call("records/setPermissions", ["owner": "o", "id": "t3", "permissions": ["patterns": true]])
        try Self.expectCurrent(f, "patterns permission on")
        try f.call("records/delete", ["owner": "o", "ids": ["t1"]])
        try Self.expectCurrent(f, "a deletion")
        try f.refresh()
        let gid = try #require(try f.findings()["findings"]?.arrayValue?.first?["groupId"]?.intValue)
        let version = try #require(try f.group(gid)["version"]?.intValue)
        try f.call("patterns/setLabel", ["owner": "o", "groupId": .int(gid), "version": .int(version), "label": "Teachers",
                                         "description": "people who teach"])
        try Self.expectCurrent(f, "a client label")
        let member = try #require(try f.group(gid)["members"]?.arrayValue?.first?["occurrenceId"]?.intValue)
        try f.call("patterns/correct", ["owner": "o", "correction": ["kind": "dismiss", "occurrenceId": .int(member), "groupId": .int(gid)]])
        try Self.expectCurrent(f, "a dismissal")
        try f.refresh()
        try Self.expectCurrent(f, "the last refresh")
    }

    /// A refresh is one transaction: the occurrences it read are kept once it commits, so the next
    /// refresh reads only what the input log names since, not every occurrence again.
    @Test func aRefreshKeepsTheOccurrencesItReadForTheNext() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        #expect(f.service.occurrenceCopies.entry("o") == nil)
        try f.refresh()
        let first = try #require(f.service.occurrenceCopies.entry("o"), "the first refresh keeps what it read")
        try f.record("t4", "teacher 4")
        try f.refresh()
        let second = try #require(f.service.occurrenceCopies.entry("o"))
        #expect(second.position > first.position, "the copy follows the input log")
        #expect(second.occurrences.count == first.occurrences.count + 1)
        try Self.expectCurrent(f, "two refreshes")
    }

    @Test func writesByAnotherConnectionAreSeen() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        try f.refresh()
        try Self.expectCurrent(f, "the refresh")
        // Another process turns a record's patterns permission off and rewrites the counters.
        let other = try RecordStore(path: f.path)
        try other.database.run("UPDATE records SET perm_patterns = 0 WHERE owner = 'o' AND id = 't2'")
        var row = try #require(try other.patternStateRow(owner: "o"))
        row.nextGroupID += 100
        try other.savePatternStateRow(row)
        let data = try f.service.withWriter { try f.service.loadOwnerPatterns($0, owner: "o", withVectors: true) }
        #expect(!data.occurrences.values.contains { $0.recordID == "t2" })
        #expect(data.state.nextGroupID == row.nextGroupID)
        try Self.expectCurrent(f, "the other connection's writes")
        // The log is pruned past the service's copy: the copy is read again in full.
        try other.pruneInputLog(upTo: try other.inputLogPosition())
        try other.database.run("UPDATE records SET perm_patterns = 1 WHERE owner = 'o' AND id = 't2'")
        try other.pruneInputLog(upTo: try other.inputLogPosition())
        let after = try f.service.withWriter { try f.service.loadOwnerPatterns($0, owner: "o", withVectors: true) }
        #expect(after.occurrences.values.contains { $0.recordID == "t2" })
        try Self.expectCurrent(f, "pruning")
        other.database.close()
    }

    @Test func aRefreshAfterAPlacementUsesTheSavedStateAndDecidesAsAFreshService() throws {
        let f = try PatternFixture()
        for i in 1...3 { try f.record("t\(i)", "teacher \(i)") }
        try f.refresh()
        try f.record("t4", "teacher 4")
        try f.refresh()
        try f.record("t5", "teacher 5")
        let warm = try f.refresh()
        let rows = try f.patternRows()
        // The same history replayed on a service that never kept anything gives the same rows.
        let g = try PatternFixture()
        for i in 1...3 { try g.record("t\(i)", "teacher \(i)") }
        try g.refresh()
        try g.reopen()
        try g.record("t4", "teacher 4")
        try g.refresh()
        try g.reopen()
        try g.record("t5", "teacher 5")
        let cold = try g.refresh()
        #expect(warm["assigned"] == cold["assigned"])
        #expect(try g.patternRows() == rows)
    }

    /// A pending mark goes into its row's columns and comes back the same, its scope included when
    /// it is the owner's (a scope of another owner, which no state holds, is not stored).
    @Test func pendingMarksReadBackFromTheirColumns() throws {
        var marks: [Int64: PendingMark] = [:]
        var rng = SystemRandomNumberGenerator()
        for id in (1...300).shuffled(using: &rng) {
            let cert = id % 3 == 0 ? nil : PendingCertificate(
                at: id * 7, candidates: (0..<(id % 11)).map { Int64($0 * 13 + id) }, kthScore: id % 5 == 0 ? nil : id - 150,
                kthGroup: id % 5 == 0 ? nil : Int64(id), stamp: id &* 2_654_435_761)
            let scope = id % 4 == 0 ? nil : Scope(owner: id % 7 == 0 ? "other" : "o\\\"", category: "caf\u{e9}/\n\(id % 3)")
            marks[Int64(id)] = PendingMark(evaluatedAt: id % 6 == 0 ? nil : id, certificate: cert, scope: scope)
        }
        // Numbers at the ends of their range.
        for (id, x) in [(1_000, Int.max), (1_001, Int.min), (1_002, 0), (1_003, -7)] {
            marks[Int64(id)] = PendingMark(evaluatedAt: x, certificate: PendingCertificate(at: x, candidates: [Int64(x)], kthScore: x, kthGroup: Int64(x), stamp: x),
                                           scope: Scope(owner: "o\\\"", category: "c"))
        }
        marks[.max] = .fresh
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("marks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try RecordStore(path: dir.appendingPathComponent("k.sqlite").path)
        let owner = "o\\\""
        try store.savePendingMarks(owner: owner, marks.map { ($0.key, PatternCodec.markRow($0.key, $0.value, owner: owner)) })
        let back = try store.pendingMarkRows(owner: owner)
        #expect(back.map(\.occurrence) == marks.keys.sorted())
        for row in back {
            let mark = try #require(marks[row.occurrence])
            let read = PatternCodec.mark(row, owner: owner)
            #expect(read == mark, "mark \(row.occurrence)")
            #expect(read.scope == (mark.scope?.owner == owner ? mark.scope : nil), "mark \(row.occurrence)")
        }
        let checked = [Scope(owner: "o", category: "b"): PendingWatermark(below: 4, at: 9), Scope(owner: "o", category: "a"): PendingWatermark(below: 1, at: 2)]
        #expect(try PatternStateJSON.decodeChecked(try #require(PatternStateJSON.checked(checked))) == checked)
        #expect(PatternStateJSON.checked([:]) == nil)
    }
}
