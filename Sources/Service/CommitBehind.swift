import Dispatch
import Synchronization

/// Runs writes one at a time on a thread of their own, behind the caller, so that the caller can
/// prepare the next batch (tokenise and embed it) while the last one commits. Writes run in the order
/// submitted; `wait` returns once every submitted write has finished and throws the first error one
/// threw (after which later writes are skipped). Nothing is acknowledged before `wait` returns.
final class CommitBehind: Sendable {
    private let queue = DispatchQueue(label: "kindred.commit-behind")
    private let group = DispatchGroup()
    private let failure = Mutex<(any Error)?>(nil)

    /// Queues `write` after the writes submitted before it.
    func submit(_ write: @escaping @Sendable () throws -> Void) {
        queue.async(group: group) { [self] in
            guard failure.withLock({ $0 == nil }) else { return }
            do { try write() } catch { failure.withLock { if $0 == nil { $0 = error } } }
        }
    }

    /// Waits for every submitted write; rethrows the first failure.
    func wait() throws {
        group.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
