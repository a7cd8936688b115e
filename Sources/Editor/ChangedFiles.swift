import Dispatch
import Synchronization

/// Files the editor said changed (saved, created, deleted), waiting to be indexed again, and the
/// order of those notices: a request that arrives after a notice waits until that file is indexed,
/// so a saved entry is found by the next search. The initial indexing takes them between files,
/// so a save made meanwhile waits for no more than one file's work.
final class ChangedFiles: Sendable {
    private struct State {
        var waiting: [String] = []
        /// Notices received, and notices whose files are indexed (they are indexed in notice order).
        var noticed = 0
        var done = 0
    }
    private let state = Mutex(State())
    private let progress = DispatchSemaphore(value: 0)
    private let waiters = Atomic<Int>(0)

    /// Notes a change of `path`; returns its notice number.
    @discardableResult
    func notice(_ path: String) -> Int {
        state.withLock { s in
            if !s.waiting.contains(path) { s.waiting.append(path) }
            s.noticed += 1
            return s.noticed
        }
    }

    var isEmpty: Bool { state.withLock { $0.waiting.isEmpty } }

    /// Takes the files waiting, with the notice number they answer up to.
    func take() -> (paths: [String], upTo: Int) {
        state.withLock { s in
            defer { s.waiting.removeAll() }
            return (s.waiting, s.noticed)
        }
    }

    /// Marks the notices up to `upTo` as indexed and wakes the requests that wait for them.
    func finished(upTo: Int) {
        state.withLock { $0.done = max($0.done, upTo) }
        for _ in 0..<waiters.load(ordering: .sequentiallyConsistent) { progress.signal() }
    }

    /// Waits until every notice received so far is indexed, at most `timeout` seconds; false when
    /// the time ran out (the request is then answered from what is indexed).
    func waitForNotices(timeout: Double, isCancelled: () -> Bool) -> Bool {
        let target = state.withLock { $0.noticed }
        let deadline = DispatchTime.now() + timeout
        waiters.add(1, ordering: .sequentiallyConsistent)
        defer { waiters.subtract(1, ordering: .sequentiallyConsistent) }
        while state.withLock({ $0.done }) < target {
            if isCancelled() || DispatchTime.now() >= deadline { return false }
            _ = progress.wait(timeout: min(deadline, .now() + 0.05))
        }
        return true
    }
}
