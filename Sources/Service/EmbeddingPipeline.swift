public import KindredCore
import Dispatch
import JSONRPC
import Storage
import Synchronization

/// Records upserted without a vector wait in the store until the embedder computes one. In `serve`
/// this runs on a background queue so a long ingest never stalls other requests; the CLI runs it inline.
extension KindredService {
    public func pendingEmbeddingCount() -> Int {
        guard embedder != nil else { return 0 }
        let version = indexVersion
        return (try? withReader { try $0.status(owner: nil, indexVersion: version).pendingEmbeddings }) ?? 0
    }

    /// Embeds every record waiting for a vector of the current index version, batch by batch.
    /// Returns how many vectors were stored. Stops early (without error) when `isCancelled` turns true.
    public func embedPending(isCancelled: () -> Bool = { false }, progress: (Int) -> Void = { _ in }) throws -> Int {
        guard let embedder else { return 0 }
        let version = indexVersion
        let batch = max(1, config.int("embedder.batchSize"))
        var done = 0
        var after: Int64 = 0
        while !isCancelled() {
            let pending = try writer.with { try $0.pendingEmbeddings(indexVersion: version, limit: batch, after: after) }
            guard let last = pending.last else { break }
            after = last.rowid
            let vectors = try embedder.embed(pending.map(\.text), isCancelled: isCancelled)
            guard vectors.count == pending.count else { break }
            let items = zip(pending, vectors).map { (rowid: $0.rowid, revision: $0.revision, vector: $1) }
            let searchable: [Int64: String] = try writer.with { store in
                let written = Set(try store.storeModelVectors(items, indexVersion: version))
                return try store.searchableOwners(rowids: Array(written))
            }
            writeIndex { index in
                for item in items { if let owner = searchable[item.rowid] { index.put(owner: owner, rowid: item.rowid, vector: item.vector) } }
            }
            done += pending.count
            progress(done)
        }
        return done
    }

    /// Wakes the background embedding worker (serve mode only; the CLI embeds inline).
    func embeddingWorkDidArrive() {
        guard embedder != nil, worker.isEnabled else { return }
        worker.kick { [self] in
            do {
                _ = try embedPending(isCancelled: { worker.isStopping })
            } catch {
                worker.report("embedding stopped: \(error)")
            }
        }
    }

    /// Starts background embedding of whatever is pending (call once the server is up).
    public func startBackgroundEmbedding(log: @escaping @Sendable (String) -> Void) {
        worker.onProblem = log
        worker.enable()
        embeddingWorkDidArrive()
    }

    /// Stops the background worker after its current batch.
    public func stopBackgroundEmbedding() { worker.stop() }
}

/// A single background job at a time, re-run when kicked while running.
final class BackgroundWorker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "kindred.embedding")
    private let state = Mutex<(scheduled: Bool, again: Bool, stopping: Bool, enabled: Bool)>((false, false, false, false))
    var onProblem: (@Sendable (String) -> Void)?

    var isStopping: Bool { state.withLock { $0.stopping } }
    var isEnabled: Bool { state.withLock { $0.enabled } }
    func enable() { state.withLock { $0.enabled = true } }

    func kick(_ job: @escaping @Sendable () -> Void) {
        let start: Bool = state.withLock { s in
            if s.stopping { return false }
            if s.scheduled { s.again = true; return false }
            s.scheduled = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            while true {
                job()
                let again: Bool = state.withLock { s in
                    if s.again && !s.stopping { s.again = false; return true }
                    s.scheduled = false
                    return false
                }
                if !again { return }
            }
        }
    }

    func report(_ message: String) { onProblem?(message) }

    func stop() {
        state.withLock { $0.stopping = true }
        queue.sync {}
    }
}
