import Foundation
import Testing
import KindredCore
@testable import Storage

/// The WAL is copied back into the file by the checkpointer's own connection, not at the writer's
/// commit: with a checkpointer that never wakes the file stays as it was and the WAL keeps every
/// frame; with one that wakes, the file holds the rows once it has run, and nothing is lost.
@Suite struct CheckpointerTests {
    let version = IndexVersion(model: "test", dimension: 384)

    func ingest(_ s: RecordStore, round: Int, count: Int) throws {
        let records = (0..<count).map { i in Record(id: "r\(round)-\(i)", revision: 1, text: "", vector: (0..<384).map { Float(i + $0) }) }
        _ = try s.upsert(owner: "o", records: records, indexVersion: version)
    }

    func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test(arguments: [false, true])
    func theCheckpointerCopiesTheWALInsteadOfTheWriter(wakes: Bool) throws {
        let dir = TempDirectory()
        let path = dir.path("k.sqlite")
        let s = try RecordStore(path: path)
        let before = size(path)
        let checkpointer = try Checkpointer(path: path, frames: wakes ? 10 : Int(Int32.max))
        s.database.handCheckpoints(to: checkpointer)
        for round in 0..<3 { try ingest(s, round: round, count: 400) }  // 1.8 MB of vectors, over 400 frames
        checkpointer.stop()  // waits for a checkpoint still running
        #expect(size(path + "-wal") > 1_000_000)
        if wakes {
            #expect(size(path) > before + 1_000_000)
        } else {
            // The writer itself copied nothing back (its automatic checkpoint is off).
            #expect(size(path) == before)
        }
        #expect(try s.database.scalarInt("SELECT count(*) FROM vectors") == 1200)
        #expect(try s.database.integrityCheck() == "ok")
        // Reopened, the file and its WAL hold every row.
        s.database.close()
        let again = try RecordStore(path: path)
        #expect(try again.database.scalarInt("SELECT count(*) FROM records") == 1200)
    }
}
