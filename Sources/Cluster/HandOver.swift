import KindredCore

extension Node {
    /// How long a drained node waits for a shard's new leader to serve it before it hands over the
    /// next one anyway.
    static let handOverWaitMs: Int64 = 60_000

    /// A drained node's round: hands the shards the map gives it to the other live nodes, one at a
    /// time and only once the previous one's new leader serves it, each to its standby (or, with
    /// none, to the node leading fewest, then the first by name). It stops serving the shard before the map changes, and the new
    /// leader applies the log's tail before it serves, so every write acknowledged here is in the
    /// new leader's store; requests in between are retried by the router.
    func handOver(_ entries: [KeyValue.Entry?], to takers: Set<String>) throws {
        if let last = handing.withLock({ $0 }), ShardMap.nowMs() - last.atMs < Self.handOverWaitMs,
           servingNode(of: last.shard) != last.taker {
            return
        }
        handing.withLock { $0 = nil }
        guard let shard = (0..<shardCount).first(where: { entries[$0]?.value == options.name }), let entry = entries[shard] else { return }
        var counts: [String: Int] = [:]
        for e in entries { if let name = e?.value, takers.contains(name) { counts[name, default: 0] += 1 } }
        // Its standby, which holds the shard already, else the taker leading fewest.
        guard let taker = StandbyPlan.standbys(of: shard, leader: options.name, nodes: takers, count: options.standbys).first
                ?? takers.min(by: { (counts[$0] ?? 0, $0) < (counts[$1] ?? 0, $1) }) else { return }
        drop(shard)
        if try map.take(shard, node: taker, revision: entry.revision) {
            say("shard \(shard): handed over to \(taker) (this node is drained)")
            handing.withLock { $0 = (shard, taker, ShardMap.nowMs()) }
        }
    }

    /// The node answering the shard's requests now, if any answers.
    func servingNode(of shard: Int) -> String? {
        ClusterStatus.probe(connection, shard: shard, timeoutMs: 1000)?["node"]?.stringValue
    }
}
