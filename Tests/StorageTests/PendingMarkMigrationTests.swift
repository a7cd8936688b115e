import Testing
import KindredCore
@testable import Storage

/// Migration 22 reads every pending mark's JSON, as the engine wrote it, into the mark's columns.
@Suite struct PendingMarkMigrationTests {
    /// A file at migration 21 holding `marks` (occurrence, JSON) of owner "o", its state settled.
    static func file(_ marks: [(Int64, String)], in dir: TempDirectory) throws -> Database {
        let db = try Database(path: dir.path("v21.sqlite"))
        try Migrations.migrate(db, upTo: 21)
        try db.run("INSERT INTO pattern_state(owner, next_group_id, groups_version, pending, settled_at) VALUES ('o', 9, 40, '[]', 40)")
        for (occurrence, mark) in marks {
            try db.run("INSERT INTO pattern_pending(owner, occurrence, mark) VALUES ('o', ?, ?)", [.int(occurrence), .text(mark)])
        }
        return db
    }

    @Test func everyFormTheEngineWroteBecomesItsColumns() throws {
        let dir = TempDirectory()
        let db = try Self.file([
            (1, #"{"certificate":{"at":38,"candidates":[2,5,7],"kthGroup":7,"kthScore":-412,"stamp":-9223372036854775808},"evaluatedAt":39,"scope":{"category":"place","owner":"o"}}"#),
            (2, #"{"certificate":{"at":3,"candidates":[],"stamp":11},"evaluatedAt":3}"#),  // no K-th candidate, no scope (older)
            (3, #"{"evaluatedAt":12}"#),  // no certificate (older)
            (4, "{}"),  // fresh
            (5, #"{ "scope" : {"owner":"o","category":"caf\u00e9 \"x\""}, "evaluatedAt" : 9223372036854775807 }"#),  // JSONEncoder's escapes, any order
            (6, #"{"evaluatedAt":4,"scope":{"category":"person","owner":"someone else"}}"#),
        ], in: dir)
        try Migrations.migrate(db)
        let rows = try db.query("SELECT \(PendingMarkRow.columns) FROM pattern_pending WHERE owner = 'o' ORDER BY occurrence") { PendingMarkRow($0, from: 0) }
        #expect(rows == [
            PendingMarkRow(occurrence: 1, evaluatedAt: 39, category: "place",
                           certificate: .init(at: 38, candidates: [2, 5, 7], kthScore: -412, kthGroup: 7, stamp: .min)),
            PendingMarkRow(occurrence: 2, evaluatedAt: 3, category: nil, certificate: .init(at: 3, candidates: [], kthScore: nil, kthGroup: nil, stamp: 11)),
            PendingMarkRow(occurrence: 3, evaluatedAt: 12, category: nil, certificate: nil),
            PendingMarkRow(occurrence: 4, evaluatedAt: nil, category: nil, certificate: nil),
            PendingMarkRow(occurrence: 5, evaluatedAt: .max, category: "caf\u{e9} \"x\"", certificate: nil),
            PendingMarkRow(occurrence: 6, evaluatedAt: 4, category: nil, certificate: nil),
        ])
        #expect(try db.scalarInt("SELECT settled_at FROM pattern_state WHERE owner = 'o'") == 40)
        #expect(try db.query("SELECT name FROM pragma_table_info('pattern_pending') WHERE name = 'mark'") { $0.text(0) }.isEmpty)
    }

    /// A mark that is not one becomes fresh, and its owner's settled version unknown; a certificate
    /// that cannot be read is left out.
    @Test func anUnreadableMarkBecomesFresh() throws {
        let dir = TempDirectory()
        let db = try Self.file([(1, "not json"), (2, #"{"evaluatedAt":"3"}"#), (3, #"{"evaluatedAt":5,"certificate":{"at":1,"candidates":["x"],"stamp":2}}"#)], in: dir)
        try Migrations.migrate(db)
        let rows = try db.query("SELECT \(PendingMarkRow.columns) FROM pattern_pending ORDER BY occurrence") { PendingMarkRow($0, from: 0) }
        #expect(rows == [PendingMarkRow(occurrence: 1, evaluatedAt: nil, category: nil, certificate: nil),
                         PendingMarkRow(occurrence: 2, evaluatedAt: nil, category: nil, certificate: nil),
                         PendingMarkRow(occurrence: 3, evaluatedAt: 5, category: nil, certificate: nil)])
        #expect(try db.scalarInt("SELECT settled_at FROM pattern_state WHERE owner = 'o'") == nil)
    }
}
