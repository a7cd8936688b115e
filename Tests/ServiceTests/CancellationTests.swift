import Foundation
import Synchronization
import Testing
import KindredCore
import JSONRPC
import Storage
@testable import Service

/// Cancelling a request stops its SQLite work on its own connection and leaves the store as it was.
@Suite struct CancellationTests {
    @Test func aCancelledRefreshSavesNoPassageOccurrencesOrVectors() throws {
        let f = try PatternFixture(passages: true)
        for (i, text) in ["I missed the train.", "The train left without me.", "Again the train was gone."].enumerated() {
            try f.upsert("r\(i)", text: text)
        }
        let before = try f.patternRows()
        let token = CancellationToken()
        // Cancel once the passage occurrences are written (and before their vectors are stored).
        let ctx = RequestContext(id: 1, method: "patterns/refresh", token: token, workDoneToken: "w") { _, params in
            if params["value"]?["message"]?.stringValue == "occurrences ready" { token.cancel() }
        }
        #expect(f.callError("patterns/refresh", ["owner": "o"], context: ctx)?.code == .requestCancelled)
        #expect(try f.patternRows() == before)
        // Uncancelled, the same refresh makes them, embeds them and groups the three records.
        let result = try f.refresh()
        #expect(result["passageOccurrences"] == 3 && result["vectorsComputed"] == 3 && result["groupsCreated"] == 1)
        #expect(try f.patternRows() != before)
    }

    @Test func aCancelledEngineRunAfterPassagesSavesNothingForAnyOwner() throws {
        let f = try PatternFixture(passages: true)
        for (i, text) in ["I missed the train.", "The train left without me.", "Again the train was gone."].enumerated() {
            try f.upsert("a\(i)", text: text, owner: "a")
            try f.upsert("b\(i)", text: text, owner: "b")
        }
        try f.refresh(owner: "a")
        try f.upsert("a9", text: "teacher 1", owner: "a")
        let before = try f.patternRows()
        let token = CancellationToken()
        // All owners; cancel while the engine reports on the second owner.
        let ctx = RequestContext(id: 1, method: "patterns/refresh", token: token, workDoneToken: "w") { _, params in
            if params["value"]?["message"]?.stringValue == "owner 2 of 2" { token.cancel() }
        }
        #expect(f.callError("patterns/refresh", [:], context: ctx)?.code == .requestCancelled)
        #expect(try f.patternRows() == before)
        #expect(try f.refresh(owner: nil)["owners"] == 2)
    }

    /// A statement interrupted by a cancellation fails only that request's statement: another
    /// connection runs on, and the interrupted one serves the next request.
    @Test func anInterruptStopsOnlyTheRegisteredConnection() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-int-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("k.sqlite").path
        _ = try RecordStore(path: path)
        let a = try RecordStore(readerFor: path), b = try RecordStore(readerFor: path)
        // A query that runs until it is stopped (a recursive count to 10^12).
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000000) SELECT count(*) FROM n"
        let token = CancellationToken()
        let ctx = RequestContext(id: 1, method: "test", token: token)
        let started = Atomic(false)
        let stopped = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let aBox = UncheckedBox(a)
        Thread.detachNewThread {
            RequestContext.$current.withValue(ctx) {
                do {
                    _ = try KindredService.interruptible(aBox.value) { store in
                        started.store(true, ordering: .sequentiallyConsistent)
                        return try store.database.scalarInt(endless)
                    }
                    stopped.withLock { $0 = false }
                } catch let e as ResponseError {
                    stopped.withLock { $0 = e == .cancelled }
                } catch {
                    stopped.withLock { $0 = false }
                }
            }
            done.signal()
        }
        while !started.load(ordering: .sequentiallyConsistent) { usleep(1000) }
        usleep(20_000)
        token.cancel()
        done.wait()
        #expect(stopped.withLock { $0 } == true)
        // The other connection is untouched by the cancellation, and the interrupted one works again.
        #expect(try b.database.scalarInt("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT count(*) FROM n") == 100_000)
        #expect(try a.database.scalarInt("SELECT 41 + 1") == 42)
        // Once its body returned, a cancellation no longer reaches the connection.
        let later = CancellationToken()
        _ = try RequestContext.$current.withValue(RequestContext(id: 2, method: "test", token: later)) {
            try KindredService.interruptible(a) { try $0.database.scalarInt("SELECT 1") }
        }
        later.cancel()
        #expect(try a.database.scalarInt("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT count(*) FROM n") == 100_000)
    }
}



/// Hands a non-Sendable store to the one thread that uses it.
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
