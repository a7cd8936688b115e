import Foundation
import Testing
import Synchronization
@testable import Service

/// Searches read the vector index at the same time: two readers inside `readIndex` meet each other.
@Suite struct ConcurrentReadTests {
    @Test func twoIndexReadsRunAtOnce() throws {
        let f = try PatternFixture()
        let service = f.service
        let inside1 = DispatchSemaphore(value: 0), inside2 = DispatchSemaphore(value: 0)
        let met = Mutex<[Bool]>([])
        let group = DispatchGroup()
        for (mine, other) in [(inside1, inside2), (inside2, inside1)] {
            DispatchQueue.global().async(group: group) {
                service.readIndex { _ in
                    mine.signal()
                    let saw = other.wait(timeout: .now() + 5) == .success
                    other.signal()
                    met.withLock { $0.append(saw) }
                }
            }
        }
        group.wait()
        #expect(met.withLock { $0 } == [true, true])
    }
}
