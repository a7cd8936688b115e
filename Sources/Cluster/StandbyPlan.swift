/// Which nodes keep a shard's standby copy: of the live nodes that are not drained, leaving out the
/// leader, the first `count` by rendezvous hash — FNV-1a of `"<shard>/<node>"`, highest first, then
/// by name. Every node computes the same answer from the same map, and a node joining or leaving
/// changes the standbys only of the shards it ranks first for.
public enum StandbyPlan {
    public static func standbys(of shard: Int, leader: String?, nodes: Set<String>, count: Int) -> [String] {
        let ranked = nodes.filter { $0 != leader }
            .map { (name: $0, rank: ShardHash.fnv1a(Array("\(shard)/\($0)".utf8))) }
            .sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.name < $1.name }
        return ranked.prefix(max(0, count)).map(\.name)
    }
}
