import Foundation
import Storage
import Testing

/// A cluster node's write and the log sequence it applies commit together, or not at all.
struct AppliedSequenceTests {
    @Test func theSequenceCommitsWithTheWriteAndOnlyWithIt() throws {
        let dir = TempDirectory()
        let path = dir.path("shard.sqlite")
        let db = try Database(path: path)
        try AppliedSequence.prepare(db)
        try db.execute("CREATE TABLE t(x INTEGER)")
        #expect(try AppliedSequence.read(db) == 0)

        try AppliedSequence.$current.withValue(7) {
            try db.transaction { try db.run("INSERT INTO t(x) VALUES (1)") }
        }
        #expect(try AppliedSequence.read(db) == 7)

        // A write that fails rolls its sequence back with it.
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try AppliedSequence.$current.withValue(8) {
                try db.transaction {
                    try db.run("INSERT INTO t(x) VALUES (2)")
                    throw Refused()
                }
            }
        }
        #expect(try AppliedSequence.read(db) == 7)
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)

        // A nested transaction (a savepoint) stamps once, at the outermost commit; an older
        // sequence never moves the stored one back.
        try AppliedSequence.$current.withValue(9) {
            try db.transaction { try db.transaction { try db.run("INSERT INTO t(x) VALUES (3)") } }
        }
        try AppliedSequence.$current.withValue(5) {
            try db.transaction { try db.run("INSERT INTO t(x) VALUES (4)") }
        }
        #expect(try AppliedSequence.read(db) == 9)

        // Outside a cluster apply nothing is stamped.
        try db.transaction { try db.run("INSERT INTO t(x) VALUES (5)") }
        #expect(try AppliedSequence.read(db) == 9)
        db.close()

        let again = try Database(path: path)
        #expect(try AppliedSequence.read(again) == 9)
        #expect(try again.scalarInt("SELECT count(*) FROM t") == 4)
        again.close()
    }
}
