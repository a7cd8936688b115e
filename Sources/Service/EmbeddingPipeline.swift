import Foundation
import KindredCore
import Dispatch
import JSONRPC
import Storage
import Synchronization
import Remote

/// Records upserted without a vector wait in the store until the embedder computes one. In `serve`
/// this runs on a background queue so a long ingest never stalls other requests; the CLI runs it inline.
extension KindredService {
    public func pendingEmbeddingCount() -> Int {
        guard embedder != nil else { return 0 }
        let version = indexVersion
        return (try? withReader { try $0.pendingEmbeddingCount(indexVersion: version) }) ?? 0
    }

    /// Embeds every record waiting for a vector of the current index version, batch by batch.
    /// Returns how many vectors were stored. Stops early (without error) when `isCancelled` turns true.
    public func embedPending(isCancelled: () -> Bool = { false }, progress: (Int) -> Void = { _ in }) throws -> Int {
        try embedRecords(everything: false, isCancelled: isCancelled, progress: progress)
    }

    /// Embeds, batch by batch in rowid order, the records waiting for a vector — or with
    /// `everything`, every record whose vector is not the client's own (re-embedding in place, so
    /// search keeps its entries while it runs).
    ///
    /// Batch n + 1 is fetched before batch n's vectors are written, and embedded while they commit
    /// (`CommitBehind`): the writes are the same transactions, in the same order, as one after the
    /// other, and this returns (and reports progress) only for batches whose transaction committed.
    ///
    /// A remote provider embeds on its own only records with no vector at all: vectors of another
    /// index version wait for `index/rebuild` (every call counts against the owner's use). Records of
    /// an owner past a daily limit are skipped (they wait); a provider failure stops the pass and
    /// is thrown, the records not reached still waiting.
    func embedRecords(everything: Bool, isCancelled: () -> Bool, log: (String) -> Void = { _ in }, progress: (Int) -> Void) throws -> Int {
        guard let embedder else { return 0 }
        let batch = max(1, settings.embedder.batchSize)
        let missingOnly = !everything && embedder.remoteProvider != nil
        func fetch(after: Int64) throws -> [RecordStore.EmbeddingWork] {
            let version = indexVersion
            return try writer.with { store in
                everything ? try store.reembedCandidates(indexVersion: version, limit: batch, after: after)
                    : missingOnly ? try store.recordsWithoutVectors(limit: batch, after: after)
                    : try store.pendingEmbeddings(indexVersion: version, limit: batch, after: after)
            }
        }
        let commits = CommitBehind()
        var done = 0
        var writing: Int?  // vectors of the batch committing behind
        var fetched = isCancelled() ? [] : try fetch(after: 0)
        while let last = fetched.last {
            let embedded: [RecordStore.EmbeddingWork], vectors: [[Float]]
            do {
                (embedded, vectors) = try embedWork(fetched, skipLimited: true, isCancelled: isCancelled, log: log)
            } catch {
                try commits.wait()
                throw error
            }
            try commits.wait()
            if let n = writing { done += n; progress(done) }
            fetched = isCancelled() ? [] : try fetch(after: last.rowid)
            let items = zip(embedded, vectors).map { (rowid: $0.rowid, revision: $0.revision, vector: $1) }
            writing = items.count
            commits.submit { [self] in
                // The store write and the index update happen under the writer lock together, so a
                // concurrent upsert cannot interleave between them (lock order: writer, then index).
                try writer.with { store in
                    // Read again: the first answer of a remote provider may have fixed the dimension.
                    let written = Set(try store.storeModelVectors(items, indexVersion: indexVersion))
                    let searchable = try store.searchableOwners(rowids: Array(written))
                    writeIndex { index in
                        for item in items { if let owner = searchable[item.rowid] { index.put(owner: owner, rowid: item.rowid, vector: item.vector) } }
                    }
                }
            }
        }
        try commits.wait()
        if let n = writing { done += n; progress(done) }
        return done
    }

    /// Embeds a batch of records, one call per owner so that each owner's use is counted and
    /// limited apart. With `skipLimited`, the records of an owner past a daily limit are left out
    /// (they wait); otherwise the limit is thrown. Returns the records embedded and their vectors.
    func embedWork(_ fetched: [RecordStore.EmbeddingWork], skipLimited: Bool, isCancelled: () -> Bool,
                   log: (String) -> Void) throws -> (work: [RecordStore.EmbeddingWork], vectors: [[Float]]) {
        var work: [RecordStore.EmbeddingWork] = []
        var vectors: [[Float]] = []
        for owner in Self.ownersInOrder(fetched.map(\.owner)) {
            let part = fetched.filter { $0.owner == owner }
            do {
                let out = try embedTexts(part.map(\.text), as: .document, owner: owner, isCancelled: isCancelled, log: log)
                guard out.count == part.count else { continue }
                work += part
                vectors += out
            } catch let e as DailyLimitReached where skipLimited {
                log("records of one owner wait: \(e)")
            }
        }
        return (work, vectors)
    }

    /// Distinct owners in order of first appearance.
    static func ownersInOrder(_ owners: [String]) -> [String] {
        var seen = Set<String>()
        return owners.filter { seen.insert($0).inserted }
    }

    /// Reports `$/progress` for the embedding of an upsert's records until nothing is pending.
    func reportEmbeddingProgress(_ ctx: RequestContext, records: Int) {
        guard ctx.workDoneToken != nil, embedder != nil, worker.isEnabled else { return }
        let total = max(1, pendingEmbeddingCount())
        ctx.progress("begin", title: "Embedding \(records) records", message: "\(total) waiting", percentage: 0)
        worker.observe { remaining in
            if remaining == 0 {
                ctx.progress("end", message: "all records embedded")
                return false
            }
            ctx.progress("report", message: "\(remaining) waiting", percentage: max(0, (total - remaining) * 100 / total))
            return true
        }
    }

    /// Waits until none of `ids` (searchable records of `owner`) waits for a vector of the current
    /// index version, woken after each embedded batch; false when `timeout` seconds pass first, the
    /// request is cancelled, or there is no embedder to wait for.
    func waitUntilIndexed(owner: String, ids: [String], timeout: Double, _ ctx: RequestContext) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            // Read each time: the first answer of a remote provider may have fixed the dimension.
            let version = indexVersion
            // Observe before looking, so a batch that ends in between still wakes this wait.
            let woken = DispatchSemaphore(value: 0)
            if worker.isEnabled { worker.observe { _ in woken.signal(); return false } }
            guard let waiting = try? withReader({ try $0.pendingSearchable(owner: owner, ids: ids, indexVersion: version) }) else { return false }
            if waiting.isEmpty { return true }
            if embedder == nil || ctx.isCancelled { return false }
            // Without a background worker (in-process calls) nothing would wake the wait: poll.
            let next = worker.isEnabled ? deadline : min(deadline, DispatchTime.now() + 0.05)
            if woken.wait(timeout: next) == .timedOut, DispatchTime.now() >= deadline { return false }
        }
    }

    /// Wakes the background embedding worker (serve mode only; the CLI embeds inline).
    func embeddingWorkDidArrive() {
        guard embedder != nil, worker.isEnabled else { return }
        worker.kick { [self] in
            do {
                _ = try embedRecords(everything: false, isCancelled: { worker.isStopping }, log: { worker.report($0) }) { _ in
                    worker.notifyObservers { pendingEmbeddingCount() }
                }
                worker.notifyObservers { pendingEmbeddingCount() }
            } catch {
                // A worker stopped on purpose (its store closes: a cluster node handing a shard over
                // or discarding a copy, the process ending) cancels its batch: nothing failed.
                if worker.isStopping { return }
                // Nothing is lost: the records not reached keep waiting, and are tried again later.
                let later = settings.embedder.retryLater
                worker.report("embedding stopped: \(error); the waiting records are tried again in \(Int(later.rounded(.up)))s or on the next write")
                worker.retryLater(after: later) { [self] in embeddingWorkDidArrive() }
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

    /// Runs `job` after `seconds` unless the worker is stopping by then (one retry timer at a time).
    private let retryArmed = Mutex<Bool>(false)
    func retryLater(after seconds: Double, _ job: @escaping @Sendable () -> Void) {
        guard seconds > 0, retryArmed.withLock({ armed in defer { armed = true }; return !armed }) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            retryArmed.withLock { $0 = false }
            if !isStopping { job() }
        }
    }

    /// Observers of embedding progress (an upsert that carried a `workDoneToken`); each returns false
    /// when it wants no more calls.
    private let observers = Mutex<[@Sendable (Int) -> Bool]>([])

    func observe(_ observer: @escaping @Sendable (Int) -> Bool) {
        observers.withLock { $0.append(observer) }
    }

    /// Calls the observers with `remaining()`, counted after they are taken off the list (and only
    /// when there are any): a count taken before an observer arrived never reaches it, so an upsert's
    /// progress never hears "nothing waits" from a count older than its own records.
    func notifyObservers(remaining: () -> Int) {
        let current = observers.withLock { list in
            let l = list
            list.removeAll()
            return l
        }
        guard !current.isEmpty else { return }
        let count = remaining()
        let keep = current.filter { $0(count) }
        observers.withLock { $0.append(contentsOf: keep) }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        queue.sync {}
    }
}
