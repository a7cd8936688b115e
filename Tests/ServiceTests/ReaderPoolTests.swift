import Foundation
import Storage
import Synchronization
import Testing
@testable import Service

/// The pool opens at most `capacity` read connections: a read beyond them waits for one to come back
/// and is given that same connection, and a burst of reads leaves no more than `capacity` open.
@Suite struct ReaderPoolTests {
    /// A store file in a fresh folder (readers need the file to exist).
    final class StoreFile {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("kindred-pool-\(UUID().uuidString)")
        var path: String { dir.appendingPathComponent("k.sqlite").path }
        init() throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            _ = try RecordStore(path: path)
        }
        deinit { try? FileManager.default.removeItem(at: dir) }
    }

    /// Runs `body` on a thread of its own (a queue might not start a thread while others block).
    static func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread { body(); group.leave() }.start()
    }

    @Test func aReadBeyondTheCapacityWaitsForAConnectionToComeBack() throws {
        let file = try StoreFile()
        let pool = ReaderPool(path: file.path, capacity: 2)
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let used = Mutex<[ObjectIdentifier]>([])
        let done = DispatchGroup()
        for _ in 0..<2 {
            Self.spawn(done) {
                _ = try? pool.with { store in
                    used.withLock { $0.append(ObjectIdentifier(store)) }
                    inside.signal()
                    release.wait()
                }
            }
        }
        inside.wait()
        inside.wait()
        // Both connections are taken: a third read must not get in until one comes back.
        let thirdIn = DispatchSemaphore(value: 0)
        Self.spawn(done) {
            _ = try? pool.with { store in
                used.withLock { $0.append(ObjectIdentifier(store)) }
                thirdIn.signal()
            }
        }
        #expect(thirdIn.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(pool.openCount == 2)
        release.signal()
        #expect(thirdIn.wait(timeout: .now() + 10) == .success)
        release.signal()
        done.wait()
        let ids = used.withLock { $0 }
        #expect(ids.count == 3)
        #expect(Set(ids).count == 2)
        #expect(pool.openCount == 2)
    }

    @Test func aBurstOfReadsLeavesAtMostTheCapacityOpen() throws {
        let file = try StoreFile()
        let pool = ReaderPool(path: file.path, capacity: 3)
        let busy = Mutex((now: 0, most: 0))
        let done = DispatchGroup()
        for _ in 0..<16 {
            Self.spawn(done) {
                _ = try? pool.with { store in
                    busy.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    _ = try? store.schemaVersionInFile()
                    usleep(20_000)
                    busy.withLock { $0.now -= 1 }
                }
            }
        }
        done.wait()
        #expect(busy.withLock { $0.most } <= 3)
        #expect(pool.openCount <= 3)
    }

    @Test func aReadInsideAReadDoesNotWaitForItself() throws {
        let file = try StoreFile()
        let pool = ReaderPool(path: file.path, capacity: 1)
        let versions = try pool.with { outer in
            try pool.with { inner in
                #expect(ObjectIdentifier(outer) != ObjectIdentifier(inner))
                return try inner.schemaVersionInFile()
            }
        }
        #expect(versions == RecordStore.schemaVersion)
        // The extra connection was closed when it came back.
        #expect(pool.openCount == 1)
    }
}
