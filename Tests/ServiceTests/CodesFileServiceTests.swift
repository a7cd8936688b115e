import Foundation
import Testing
import KindredCore
import Storage
@testable import Service

/// A start reads the vector index from the codes file only when SQLite says it is current.
@Suite struct CodesFileServiceTests {
    func open(_ path: String, codesFile: Bool = true) throws -> KindredService {
        var config = Config()
        try config.set("index.dimension", .int(8))
        try config.set("index.codesFile", .bool(codesFile))
        return try KindredService(config: config, databasePath: path, embedder: nil)
    }

    func ids(_ s: KindredService, _ owner: String, _ v: [Float], filters: JSONValue? = nil) throws -> [String] {
        var p: JSONObject = ["owner": .string(owner), "vector": .from(v), "limit": 20, "mode": "semantic"]
        if let filters { p["filters"] = filters }
        return try s.call("search/query", .object(p))["results"]!.arrayValue!.map { $0["id"]!.stringValue! }
    }

    func records(_ n: Int, from: Int = 0) -> JSONValue {
        .array((from..<(from + n)).map { i in
            var v = (0..<8).map { j in Float((i * 7 + j * 3) % 11) / 11 + 0.05 }
            v[i % 8] += 1
            return ["id": .string("r\(i)"), "revision": 1, "text": "t", "vector": .from(v), "kind": .string(i % 2 == 0 ? "even" : "odd")]
        })
    }

    /// A database path in a new temporary folder (`removeStore` takes the folder away).
    func temporaryStore() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-codes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("k.sqlite").path
    }

    func removeStore(_ path: String) {
        try? FileManager.default.removeItem(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    }

    @Test func cleanCloseThenStartReadsTheFileAndAnswersAlike() throws {
        let path = try temporaryStore()
        defer { removeStore(path) }
        let queries: [[Float]] = (0..<8).map { axisVector($0) }
        let even: JSONValue = ["kinds": ["even"]]

        let first = try open(path)
        #expect(!first.indexFromCodesFile)
        _ = try first.call("records/upsert", ["owner": "a", "records": records(300)])
        _ = try first.call("records/upsert", ["owner": "b", "records": records(50, from: 300)])
        _ = try first.call("records/delete", ["owner": "a", "ids": ["r3", "r4", "r100"]])
        _ = try first.call("records/upsert", ["owner": "a", "records": [["id": "r5", "revision": 2, "text": "t", "vector": .from(axisVector(2)),
                                                                     "permissions": ["search": false]]]])
        first.close()
        #expect(FileManager.default.fileExists(atPath: path + "-codes"))

        let second = try open(path)
        let plain = try open(path, codesFile: false)
        #expect(second.indexFromCodesFile && !plain.indexFromCodesFile)
        for q in queries {
            #expect(try ids(second, "a", q) == ids(plain, "a", q))
            #expect(try ids(second, "b", q) == ids(plain, "b", q))
            #expect(try ids(second, "a", q, filters: even) == ids(plain, "a", q, filters: even))
        }
        #expect(try !ids(second, "a", axisVector(2)).contains("r5"))
        plain.close()
        // The second start took the stamp: a crash now (no close) leaves SQLite without one.
        _ = try second.call("records/upsert", ["owner": "a", "records": records(5, from: 1000)])
        let afterCrash = try open(path)
        #expect(!afterCrash.indexFromCodesFile)
        let expected = 301  // 300 − 3 deleted − 1 hidden + 5 new
        let countAfterCrash = afterCrash.readIndex { $0.count(owner: "a") }
        #expect(countAfterCrash == expected)
        afterCrash.close()  // nothing else committed while it ran: it stamps its file
        second.close()  // another connection committed meanwhile: it leaves the stamp alone
        let last = try open(path)
        #expect(last.indexFromCodesFile)
        let countAtLast = last.readIndex { $0.count(owner: "a") }
        #expect(countAtLast == expected)
        last.close()
    }

    /// A write by another process between two starts (here a plain SQLite connection) makes the file stale.
    @Test func aWriteAfterTheCloseMakesTheNextStartReadSQLite() throws {
        let path = try temporaryStore()
        defer { removeStore(path) }
        let first = try open(path)
        _ = try first.call("records/upsert", ["owner": "a", "records": records(40)])
        first.close()
        let other = try RecordStore(path: path)
        try other.database.run("DELETE FROM vectors WHERE record = (SELECT rowid FROM records WHERE id = 'r0')")
        other.database.close()
        let second = try open(path)
        #expect(!second.indexFromCodesFile)
        #expect(try !ids(second, "a", axisVector(0)).contains("r0"))
        second.close()
        let third = try open(path)
        #expect(third.indexFromCodesFile)
        #expect(try !ids(third, "a", axisVector(0)).contains("r0"))
        third.close()
    }

    /// Another process that commits a vector change while a service closes (its write transaction
    /// open when the close begins) leaves no stamp: the check and the stamp cannot straddle a commit.
    @Test func aCommitDuringTheCloseLeavesNoStamp() throws {
        let path = try temporaryStore()
        defer { removeStore(path) }
        let first = try open(path)
        _ = try first.call("records/upsert", ["owner": "a", "records": records(40)])
        let other = try RecordStore(path: path)
        try other.database.execute("BEGIN IMMEDIATE")
        try other.database.run("DELETE FROM vectors WHERE record = (SELECT rowid FROM records WHERE id = 'r0')")
        nonisolated(unsafe) let holder = other
        let committer = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            try? holder.database.execute("COMMIT")
        }
        committer.start()
        first.close()  // waits for the other's write lock, then sees its commit
        other.database.close()
        let second = try open(path)
        #expect(!second.indexFromCodesFile)
        #expect(try !ids(second, "a", axisVector(0)).contains("r0"))
        #expect(second.readIndex { $0.count(owner: "a") } == 39)
        second.close()
    }
}
