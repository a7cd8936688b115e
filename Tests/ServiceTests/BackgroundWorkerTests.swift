@testable import Service
import Synchronization
import Testing

/// The embedding worker's progress observers hear only counts taken after they were registered.
@Suite("background worker observers")
struct BackgroundWorkerTests {
    @Test func anObserverNeverHearsACountOlderThanItself() {
        let worker = BackgroundWorker()
        let heard = Mutex<[String]>([])
        worker.observe { n in heard.withLock { $0.append("early \(n)") }; return true }
        // An observer that arrives while the count is taken (an upsert's, while the worker finishes a
        // pass that did not see its records) is not told that count: the next pass tells it.
        worker.notifyObservers {
            worker.observe { n in heard.withLock { $0.append("late \(n)") }; return false }
            return 0
        }
        #expect(heard.withLock { $0 } == ["early 0"])
        // (Observers are called in no particular order.)
        worker.notifyObservers { 44 }
        #expect(heard.withLock { $0 }.sorted() == ["early 0", "early 44", "late 44"])
        // The late observer asked for no more calls; the early one stays.
        worker.notifyObservers { 0 }
        #expect(heard.withLock { $0 }.sorted() == ["early 0", "early 0", "early 44", "late 44"])
    }

    @Test func nothingIsCountedWithoutObservers() {
        let worker = BackgroundWorker()
        let counted = Mutex(0)
        worker.notifyObservers { counted.withLock { $0 += 1 }; return 3 }
        #expect(counted.withLock { $0 } == 0)
    }
}
