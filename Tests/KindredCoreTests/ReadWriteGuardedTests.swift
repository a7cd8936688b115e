import Foundation
import Testing
import KindredCore
import Synchronization

/// Reads under a `ReadWriteGuarded` run at the same time; a write runs alone.
@Suite struct ReadWriteGuardedTests {
    final class Box { var n = 0 }

    /// Two readers each wait, inside `read`, for the other to be inside too. If reads were
    /// serialised the first would time out waiting.
    static func readersOverlap(_ read: @escaping @Sendable (@escaping () -> Void) -> Void) -> Bool {
        let inside1 = DispatchSemaphore(value: 0), inside2 = DispatchSemaphore(value: 0)
        let met = Mutex<[Bool]>([])
        let group = DispatchGroup()
        for (mine, other) in [(inside1, inside2), (inside2, inside1)] {
            DispatchQueue.global().async(group: group) {
                read {
                    mine.signal()
                    let saw = other.wait(timeout: .now() + 5) == .success
                    other.signal()
                    met.withLock { $0.append(saw) }
                }
            }
        }
        group.wait()
        return met.withLock { $0 } == [true, true]
    }

    @Test func twoReadsRunAtOnce() {
        let g = ReadWriteGuarded(Box())
        #expect(Self.readersOverlap { body in g.read { _ in body() } })
    }

    @Test func aWriteRunsAlone() {
        let g = ReadWriteGuarded(Box())
        let writing = DispatchSemaphore(value: 0), done = DispatchGroup()
        let seen = Mutex<[Int]>([])
        DispatchQueue.global().async(group: done) {
            g.write { box in
                writing.signal()
                Thread.sleep(forTimeInterval: 0.2)
                box.n = 1
            }
        }
        writing.wait()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: done) { g.read { box in seen.withLock { $0.append(box.n) } } }
        }
        done.wait()
        // Readers that started while the write held the lock saw only its finished result.
        #expect(seen.withLock { $0 } == [1, 1])
    }
}
