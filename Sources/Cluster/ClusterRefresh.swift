import Foundation
public import JSONRPC
public import KindredCore
import Synchronization

/// `kindred cluster refresh`: a pattern refresh of every owner of every shard, several shards at a
/// time. Each shard's leader receives `patterns/refresh` without an owner, which refreshes every
/// owner its store holds; it is a write like any other, logged before it applies, so a standby or
/// a new leader replaying the log refreshes the same owners at the same point.
public enum ClusterRefresh {
    /// One shard's outcome: the refresh's counts, or the error that stopped it.
    public struct ShardOutcome: Sendable {
        public let shard: Int
        public let result: Result<JSONValue, ResponseError>
    }

    /// - Parameters:
    ///   - parallel: shards refreshed at a time.
    ///   - timeoutMs: longest wait for one shard's refresh.
    ///   - retryMs: how long a shard no node serves is asked again.
    ///   - progress: called with each shard's outcome as it arrives (from several threads, one at a time).
    /// - Returns: every shard's outcome, in shard order.
    public static func run(_ connection: NATSConnection, parallel: Int, timeoutMs: Int64, retryMs: Int64,
                           progress: @escaping @Sendable (ShardOutcome) -> Void) throws -> [ShardOutcome] {
        let router = try Router(connection: connection, timeoutMs: timeoutMs, retryMs: retryMs)
        let outcomes = Mutex<[ShardOutcome]>([])
        let next = Mutex(0)
        let request = Wire.request("patterns/refresh", nil)
        let done = DispatchGroup()
        // A thread per shard in flight: the work is the nodes'; here each waits for an answer.
        for _ in 0..<max(1, min(parallel, router.shardCount)) {
            done.enter()
            Thread {
                defer { done.leave() }
                while true {
                    let shard = next.withLock { n -> Int in defer { n += 1 }; return n }
                    guard shard < router.shardCount else { return }
                    let outcome: ShardOutcome
                    do throws(ResponseError) {
                        outcome = ShardOutcome(shard: shard, result: .success(try router.send(shard, request)))
                    } catch {
                        outcome = ShardOutcome(shard: shard, result: .failure(error))
                    }
                    outcomes.withLock { list in
                        list.append(outcome)
                        progress(outcome)
                    }
                }
            }.start()
        }
        done.wait()
        return outcomes.withLock { $0 }.sorted { $0.shard < $1.shard }
    }
}
