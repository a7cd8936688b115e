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
    /// The stream sequence of the last write of this shard applied to `service`.
    private let applied: Atomic<UInt64>

    /// False once closed. Held while a request is answered, so that closing waits for it.
    private let open = Mutex(true)

    var appliedSequence: UInt64 { applied.load(ordering: .acquiring) }

    /// Opens the shard's store at the sequence it holds; `catchUp` applies the rest of the log.
    init(shard: Int, service: KindredService, log: WriteLog) throws {
        self.shard = shard
        self.service = service
        self.log = log
        try service.prepareAppliedSequence()
        applied = Atomic(UInt64(max(0, try service.appliedSequence())))
    }

    /// `catchUp` between requests (a standby's rounds, a leader's start); nothing once closed.
    func catchUpBetweenRequests() throws {
        try open.withLock { isOpen throws in if isOpen { try catchUp() } }
    }

    /// Applies the shard's writes after `appliedSequence`, up to the log's last one.
    func catchUp() throws {
        let last = try log.lastSequence(shard: shard)
        var misses = 0
        while appliedSequence < last {
            guard let (sequence, data) = try log.next(shard: shard, from: appliedSequence + 1) else {
                // A replica answering the direct read may lag the leader by a moment.
                misses += 1
                if misses > 100 { throw ClusterError("shard \(shard): the log's writes up to \(last) cannot be read") }
                usleep(20_000)
                continue
            }
            apply(sequence, data)
        }
    }

    /// Applies one logged write. A write that fails (bad params) fails the same way whenever it is
    /// applied, so its sequence counts as applied either way.
    @discardableResult
    func apply(_ sequence: UInt64, _ entry: [UInt8]) -> Result<JSONValue, ResponseError> {
        let outcome: Result<JSONValue, ResponseError>
        do throws(ResponseError) {
            let (method, params) = try Wire.decodeRequest(entry)
            outcome = .success(try service.applyLogged(sequence: Int64(sequence), method, params))
        } catch {
            outcome = .failure(error)
        }
        if sequence > appliedSequence { applied.store(sequence, ordering: .releasing) }
        return outcome
    }

    /// Answers one request with `body`, or once the host is closed (its node gave the shard up)
    /// with the retryable `shardUnavailable`.
    func serve(_ body: () -> Result<JSONValue, ResponseError>) -> Result<JSONValue, ResponseError> {
        open.withLock { isOpen in
            isOpen ? body() : .failure(.shardUnavailable(shard, "its node gave it up; the next leader answers it"))
        }
    }

    /// Closes the store after the request in progress; requests after it are refused.
    func close() {
        open.withLock { isOpen in
            if isOpen { service.close() }
            isOpen = false
        }
    }
}
