#if canImport(Glibc)
import Glibc
#endif

/// `kindred cluster drain NODE`: marks the node drained in the shard map and waits until every
/// shard it led is served by another node. The node itself hands its shards over, one at a time
/// (`Node.handOver`); a node that is silent loses them to the others as in a failover. The mark
/// stays until the node starts again.
public enum ClusterDrain {
    /// - Parameters:
    ///   - liveMs: a node whose last heartbeat is older than this is not counted as live.
    ///   - waitMs: how long to wait for the shards to move before failing (the mark stays).
    ///   - progress: called with one line per shard moved.
    /// - Returns: the shards moved and the node now serving each.
    @discardableResult
    public static func run(_ connection: NATSConnection, node: String, liveMs: Int64, waitMs: Int64,
                           progress: (String) -> Void) throws -> [(shard: Int, node: String)] {
        let map = ShardMap(try KeyValue(connection, bucket: ClusterLayout.bucket, replicas: nil))
        let shards = try map.shardCount(creating: nil)
        let nodes = try map.nodes()
        guard nodes.contains(where: { $0.name == node }) else {
            throw ClusterError("NODE: no node named '\(node)' in the cluster (its nodes: \(nodes.map(\.name).joined(separator: ", ")))")
        }
        let drained = try map.drained()
        let takers = nodes.filter { $0.name != node && !drained.contains($0.name) && ($0.ageMs ?? .max) < liveMs }
        guard !takers.isEmpty else {
            throw ClusterError("NODE: no other live node that is not drained can take the shards of '\(node)'")
        }
        try map.drain(node: node)
        let start = ShardMap.nowMs()
        let led = try (0..<shards).filter { try map.leader(of: $0)?.value == node }
        var moved: [Int: String] = [:]
        while moved.count < led.count {
            for shard in led where moved[shard] == nil {
                guard let leader = try map.leader(of: shard)?.value, leader != node, !leader.isEmpty,
                      let status = ClusterStatus.probe(connection, shard: shard, timeoutMs: 1000), status["node"]?.stringValue == leader else { continue }
                moved[shard] = leader
                progress("shard \(shard): \(node) → \(leader), applied up to \(status["applied"]?.intValue ?? 0)")
            }
            if moved.count == led.count { break }
            guard ShardMap.nowMs() - start < waitMs else {
                throw ClusterError("\(led.count - moved.count) of its \(led.count) shards are not served by another node after \(waitMs / 1000) s; '\(node)' stays drained and keeps handing them over")
            }
            usleep(250_000)
        }
        return moved.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
