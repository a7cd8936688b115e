#if canImport(Glibc)
import Glibc
#endif
import KindredCore
import Service

extension Node {
    /// The snapshot loop, on a thread of its own: every second, each shard this node leads that has
    /// taken `snapshotEvery` writes (or any write `snapshotEveryMs` ago) since its last snapshot is
    /// copied, published, its older snapshots pruned and its log trimmed (`snapshot`; not on servers
    /// that may replay the trim wrongly, `trimsLog`).
    func keepSnapshots() {
        while !isStopping {
            for host in ledHosts where !isStopping && host.snapshotDue(every: options.snapshotEvery, everyMs: options.snapshotEveryMs) {
                do { try snapshot(host) } catch { say("shard \(host.shard): snapshot: \(error)") }
            }
            usleep(1_000_000)
        }
    }

    /// Copies the shard's store while it serves (`VACUUM INTO`), publishes the copy with the log
    /// sequence it holds, keeps the newest `SnapshotStore.kept` snapshots and trims the log below the
    /// oldest of them: every write from it on stays in the log, and a copy behind it starts from a
    /// snapshot.
    func snapshot(_ host: ShardHost) throws {
        let shard = host.shard
        let path = "\(options.dataDirectory)/shard-\(shard).snapshot"
        unlink(path)
        defer { unlink(path) }
        let start = ShardMap.nowMs()
        let writes = host.writesSinceSnapshot
        guard let sequence = try host.copyStore(to: path) else { return }
        guard sequence > host.snapshotSequence else { return host.snapshotTaken(at: sequence, writes: writes) }
        // Only the leader, and only forwards: a node deposed a moment ago holds an older state.
        guard try map.leader(of: shard)?.value == options.name else { return }
        let previous = try snapshots.newest(shard: shard)
        if let previous, previous.sequence >= sequence { return host.snapshotTaken(at: previous.sequence, writes: writes) }
        let header = try snapshots.publish(shard: shard, path: path, sequence: sequence, after: previous)
        host.snapshotTaken(at: sequence, writes: writes)
        try snapshots.prune(shard: shard, newest: header)
        if trimsLog { try log.trim(shard: shard, below: header.logFrom) }
        say("shard \(shard): snapshot \(header.id) at \(sequence), \(header.size) bytes in \(header.chunks) chunks, \(ShardMap.nowMs() - start) ms; "
            + (trimsLog ? "log trimmed below \(header.logFrom)" : "log kept whole"))
    }

    /// A shard's store files: the SQLite file, its WAL and shared memory, the codes file.
    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-codes"] { unlink(path + suffix) }
    }

    /// Closes a copy that found the log trimmed past where it started reading (it may have applied
    /// writes with others missing between them) and removes its files: whoever opens the shard
    /// next starts from a snapshot. The copy stops leading or standing by first. Logged once, with
    /// why (closing the store stops its embedding on purpose: no error of its own).
    func discard(_ host: ShardHost, because trimmed: LogTrimmed) {
        let shard = host.shard
        let subscription = opening.withLock { () -> Subscription? in
            let subscription = dropLed(shard, ifHost: host)
            standing.withLock { if $0[shard] === host { $0[shard] = nil } }
            host.close()
            Self.removeStore(host.service.databasePath)
            return subscription
        }
        subscription?.cancel()
        say("\(trimmed)")
    }

    /// Replaces the shard's file at `path` by the newest snapshot that reads back whole when the
    /// file is behind where the shard's log starts (the newest snapshot's `logFrom`: the log may no
    /// longer hold the writes the file lacks; a new file holds none), then the log's tail is
    /// applied as usual. A snapshot that fails its check is refused (logged) and the one before it
    /// tried, down to the oldest one the log's tail still follows.
    /// - Returns: the restored snapshot's sequence (nil when the file was kept).
    @discardableResult
    func restoreIfBehind(_ shard: Int, path: String) throws -> UInt64? {
        guard let newest = try snapshots.newest(shard: shard) else { return nil }
        let oldest = newest.logFrom
        let applied = UInt64(try KindredService.appliedSequence(atPath: path))
        guard applied < oldest else { return nil }
        var candidates = [newest]
        for m in try snapshots.markers(shard: shard).reversed() where m.id != newest.id && m.sequence >= oldest { candidates.append(m) }
        for marker in candidates {
            let start = ShardMap.nowMs()
            let incoming = path + ".incoming"
            do {
                try snapshots.fetch(marker, to: incoming)
            } catch {
                say("shard \(shard): \(error)")
                continue
            }
            Self.removeStore(path)
            guard rename(incoming, path) == 0 else { throw ClusterError("shard \(shard): cannot move the snapshot into \(path): \(String(cString: strerror(errno)))") }
            say("shard \(shard): restored from snapshot \(marker.id) at \(marker.sequence) (\(marker.size) bytes, \(ShardMap.nowMs() - start) ms); the log's tail follows")
            return marker.sequence
        }
        throw ClusterError("shard \(shard): no snapshot reads back whole, and the log holds only the writes after \(oldest) while this copy holds up to \(applied)")
    }
}
