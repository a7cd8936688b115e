import Foundation
import Synchronization
import Testing
import KindredCore
@testable import Storage

/// Group commit on a real file: commits stop syncing on their own, each is counted, and waiters
/// whose commits were all made before a sync are answered by that one sync.
@Suite struct GroupCommitTests {
    let version = IndexVersion(model: "test", dimension: 4)

    func put(_ s: RecordStore, _ id: String) throws {
        _ = try s.upsert(owner: "o", records: [Record(id: id, revision: 1, text: "text \(id)", vector: [1, 2, 3, 4])], indexVersion: version)
    }

    @Test func commitsWaitingTogetherShareOneSync() throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        let s = try RecordStore(path: path)
        let checkpointer = try Checkpointer(path: path)
        s.database.handCheckpoints(to: checkpointer)
        #expect(try s.database.scalarInt("PRAGMA synchronous") == 2)  // FULL until group commit
        let commits = try GroupCommit(s.database)
        #expect(try s.database.scalarInt("PRAGMA synchronous") == 1)  // NORMAL: no sync inside the commit
        // Nothing committed since: durable at once, without a sync.
        let first = Mutex(false)
        commits.whenDurable(commits.mark()) { problem in first.withLock { $0 = problem == nil } }
        #expect(first.withLock { $0 } && commits.syncCount == 0)

        var marks: [UInt64] = []
        for i in 0..<5 {
            try put(s, "r\(i)")
            marks.append(commits.mark())
        }
        #expect(marks == marks.sorted() && Set(marks).count == 5)  // one count per commit
        let done = DispatchGroup()
        let answered = Mutex(0)
        for m in marks {
            done.enter()
            commits.whenDurable(m) { problem in
                if problem == nil { answered.withLock { $0 += 1 } }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(answered.withLock { $0 } == 5)
        #expect(commits.syncCount == 1)
        // Readers see a commit before it is synced; the file reopened holds every row.
        let reader = try RecordStore(readerFor: path)
        #expect(try reader.database.scalarInt("SELECT count(*) FROM records") == 5)
        checkpointer.stop()
        s.database.close()
        #expect(try RecordStore(path: path).database.scalarInt("SELECT count(*) FROM records") == 5)
    }

    @Test func aStoreWithoutAWALIsRefused() throws {
        let s = try RecordStore(path: ":memory:")
        #expect(throws: SQLiteError.self) { try GroupCommit(s.database) }
    }
}
