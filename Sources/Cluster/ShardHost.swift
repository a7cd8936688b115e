#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import KindredCore
import Service
import Synchronization

/// One shard on a node that leads it or keeps its standby copy: its store (a `KindredService` on its
/// own SQLite file) and the last log sequence that store has applied. Requests reach it one at a
/// time, in arrival order; a standby only applies the log.
final class ShardHost: @unchecked Sendable {
    let shard: Int
    let service: KindredService
    let log: WriteLog
    let snapshots: SnapshotStore
    /// The stream sequence of the last write of this shard applied to `service`.
    private let applied: Atomic<UInt64>
    /// Writes applied since this node's last snapshot of the shard, and when that was.
    private let sinceSnapshot = Mutex<(writes: Int, atMs: Int64, sequence: UInt64)>((0, ShardMap.nowMs(), 0))
    /// Held while a snapshot copies the store, so that closing waits for the copy.
    private let copying = Mutex(())

    /// False once closed. Held while a request is answered, so that closing waits for it.
    private let open = Mutex(true)

    var appliedSequence: UInt64 { applied.load(ordering: .acquiring) }

    /// Opens the shard's store at the sequence it holds; `catchUp` applies the rest of the log.
    init(shard: Int, service: KindredService, log: WriteLog, snapshots: SnapshotStore) throws {
        self.shard = shard
        self.service = service
        self.log = log
        self.snapshots = snapshots
        try service.prepareAppliedSequence()
        applied = Atomic(UInt64(max(0, try service.appliedSequence())))
    }

    /// `catchUp` between requests (a standby's rounds, a leader's start); nothing once closed.
    func catchUpBetweenRequests() throws {
        try open.withLock { isOpen throws in if isOpen { try catchUp() } }
    }

    /// Applies the shard's writes after `appliedSequence`, up to the log's last one, each only on top
    /// of the write its entry names as `prev`. Throws `LogTrimmed` when the log no longer holds
    /// every write after `appliedSequence` (they were trimmed below a snapshot): the copy must start
    /// again from a snapshot.
    func catchUp() throws {
        let last = try log.lastSequence(shard: shard)
        let from = appliedSequence
        guard from < last else { return }
        try checkLogHolds(after: from)
        var misses = 0
        while appliedSequence < last {
            guard let (sequence, data) = try log.next(shard: shard, from: appliedSequence + 1) else {
                // A replica answering the direct read may lag the leader by a moment.
                misses += 1
                if misses > 100 { throw ClusterError("shard \(shard): the log's writes up to \(last) cannot be read") }
                usleep(20_000)
                continue
            }
            // Only on top of the write it follows: a trim may have left out writes between the last
            // one applied here and this one, or the replica that answered lacks some, or this copy
            // holds a write the log's chain does not (its append's acknowledgement outlived a
            // nats-server killed under it). The copy starts again from a snapshot.
            if let prev = Wire.previous(data), prev != appliedSequence {
                throw LogTrimmed(shard: shard, applied: appliedSequence, oldestSnapshot: prev)
            }
            apply(sequence, data)
        }
    }

    /// The log holds every write of the shard from the newest snapshot's `logFrom` on (it is
    /// trimmed only below it, once that snapshot is published; the marker is read from the stream's
    /// leader): `sequence` at or above it has its tail there.
    func checkLogHolds(after sequence: UInt64) throws {
        let from = try snapshots.newest(shard: shard)?.logFrom ?? 0
        if sequence < from { throw LogTrimmed(shard: shard, applied: sequence, oldestSnapshot: from) }
    }

    /// Applies one logged write (the leader's with its request's `context`: progress, the judge).
    /// A write that fails (bad params) fails the same way whenever it is applied, so its sequence
    /// counts as applied either way.
    @discardableResult
    func apply(_ sequence: UInt64, _ entry: [UInt8], context: RequestContext? = nil) -> Result<JSONValue, ResponseError> {
        let outcome: Result<JSONValue, ResponseError>
        do throws(ResponseError) {
            let (method, params) = try Wire.decodeRequest(entry)
            outcome = .success(try service.applyLogged(sequence: Int64(sequence), method, params, context: context))
        } catch {
            outcome = .failure(error)
        }
        if sequence > appliedSequence {
            applied.store(sequence, ordering: .releasing)
            sinceSnapshot.withLock { $0.writes += 1 }
        }
        return outcome
    }

    /// Answers one request with `body`, or once the host is closed (its node gave the shard up)
    /// with the retryable `shardUnavailable`.
    func serve(_ body: () -> Result<JSONValue, ResponseError>) -> Result<JSONValue, ResponseError> {
        open.withLock { isOpen in
            isOpen ? body() : .failure(.shardUnavailable(shard, "its node gave it up; the next leader answers it"))
        }
    }

    /// Closes the store after the request in progress (and the snapshot copy in progress);
    /// requests after it are refused.
    func close() {
        copying.withLock { _ in
            open.withLock { isOpen in
                if isOpen { service.close() }
                isOpen = false
            }
        }
    }

    // MARK: snapshots

    /// True when this shard has applied `every` writes (0: never by count) since its last snapshot,
    /// or at least one and `everyMs` (0: never by time) have passed.
    func snapshotDue(every: Int, everyMs: Int) -> Bool {
        let s = sinceSnapshot.withLock { $0 }
        return (every > 0 && s.writes >= every) || (everyMs > 0 && s.writes > 0 && ShardMap.nowMs() - s.atMs >= Int64(everyMs))
    }

    /// The sequence of the newest snapshot of this shard known here.
    var snapshotSequence: UInt64 { sinceSnapshot.withLock { $0.sequence } }

    /// Writes applied since the last snapshot, now.
    var writesSinceSnapshot: Int { sinceSnapshot.withLock { $0.writes } }

    /// Records a snapshot of the shard at `sequence` (this node's or one it found) that holds the
    /// first `writes` of the writes counted since the last one (those applied while it was taken
    /// stay counted).
    func snapshotTaken(at sequence: UInt64, writes: Int = .max) {
        sinceSnapshot.withLock { $0 = (max(0, $0.writes - writes), ShardMap.nowMs(), max($0.sequence, sequence)) }
    }

    /// Copies the store into a new file at `path` while requests go on; returns the log sequence the
    /// copy holds, or nil once the host is closed.
    func copyStore(to path: String) throws -> UInt64? {
        try copying.withLock { _ throws -> UInt64? in
            guard open.withLock({ $0 }) else { return nil }
            return UInt64(try service.copyStore(to: path))
        }
    }
}

/// The write log no longer holds every write after a copy's applied sequence: the copy starts again
/// from the newest snapshot.
struct LogTrimmed: Error, CustomStringConvertible {
    let shard: Int
    let applied: UInt64
    let oldestSnapshot: UInt64
    var description: String {
        "shard \(shard): the log no longer holds every write after \(applied) (it goes on from \(oldestSnapshot)); this copy starts again from a snapshot"
    }
}
