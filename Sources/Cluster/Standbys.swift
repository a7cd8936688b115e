#if canImport(Glibc)
import Glibc
#endif
import KindredCore

extension Node {
    /// Opens the shard's store in this node's data directory, at the sequence its file holds, after
    /// replacing the file by the newest snapshot when the log no longer holds what the file lacks
    /// (`restoreIfBehind`: a new node, a returning one, a standby far behind).
    func openHost(_ shard: Int) throws -> ShardHost {
        let path = "\(options.dataDirectory)/shard-\(shard).sqlite"
        let restored = try restoreIfBehind(shard, path: path)
        let host = try ShardHost(shard: shard, service: try makeService(path), log: log, snapshots: snapshots)
        if let restored { host.snapshotTaken(at: restored) }
        return host
    }

    /// Which shards this node keeps a standby copy of: those another node leads whose standbys
    /// (`StandbyPlan`, over the live nodes that are not drained) include this one.
    func planStandbys(_ entries: [KeyValue.Entry?], live: Set<String>) {
        let mine = Set((0..<shardCount).filter { shard in
            guard let leader = entries[shard]?.value, !leader.isEmpty, leader != options.name else { return false }
            return StandbyPlan.standbys(of: shard, leader: leader, nodes: live, count: options.standbys).contains(options.name)
        })
        wantedStandbys.withLock { $0 = mine }
    }

    /// True when this node should leave a silent leader's shard to a live standby of it for now:
    /// until the leader has been silent for twice `failoverMs`.
    func waitsForStandby(_ shard: Int, leader: String, live: Set<String>, silentMs: Int64) -> Bool {
        guard options.standbys > 0, silentMs < 2 * Int64(options.failoverMs) else { return false }
        let standbys = StandbyPlan.standbys(of: shard, leader: leader, nodes: live, count: options.standbys)
        return !standbys.isEmpty && !standbys.contains(options.name)
    }

    /// The standby loop, on a thread of its own: opens a copy of each shard `tick` asks for,
    /// applies each copy's log as it grows, and closes the copies no longer asked for.
    func keepStandbys() {
        while !isStopping {
            let wanted = wantedStandbys.withLock { $0 }
            let gone = standing.withLock { copies -> [ShardHost] in
                let gone = copies.filter { !wanted.contains($0.key) }
                for shard in gone.keys { copies[shard] = nil }
                return Array(gone.values)
            }
            for host in gone { host.close() }
            for shard in wanted.sorted() where !isStopping {
                let host: ShardHost? = opening.withLock {
                    if let h = standing.withLock({ $0[shard] }) { return h }
                    guard !ledShards.contains(shard) else { return nil }
                    do {
                        let h = try openHost(shard)
                        standing.withLock { $0[shard] = h }
                        say("shard \(shard): keeping a standby copy (from \(h.appliedSequence))")
                        return h
                    } catch {
                        say("shard \(shard): cannot open a standby copy: \(error)")
                        return nil
                    }
                }
                do {
                    try host?.catchUpBetweenRequests()
                } catch let trimmed as LogTrimmed {
                    // Far behind: the next round opens the copy again from the newest snapshot.
                    if let host { discard(host, because: trimmed) }
                } catch {
                    say("shard \(shard): standby copy: \(error)")
                }
            }
            usleep(250_000)
        }
    }

    /// What `kindred cluster status` asks a node: `{node, standbys: [{shard, applied}]}`.
    func standbyStatus() -> JSONValue {
        let copies = standing.withLock { $0.map { (shard: $0.key, applied: $0.value.appliedSequence) } }.sorted { $0.shard < $1.shard }
        return ["node": .string(options.name),
                "standbys": .array(copies.map { ["shard": .from($0.shard), "applied": .int(Int64($0.applied))] })]
    }
}
