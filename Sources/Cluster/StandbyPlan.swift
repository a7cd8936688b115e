/// Which nodes keep a shard's standby copy: of the live nodes that are not drained, leaving out the
/// leader, the first `count` by rendezvous hash — FNV-1a of `"<shard>/<node>"` through MurmurHash3's
/// 64-bit finalizer (FNV-1a alone ranks names that differ in their last letter in nearly the same
/// order for every shard), highest first, then by name. Every node computes the same answer from the same map, and a node joining or leaving
/// changes the standbys only of the shards it ranks first for.
public enum StandbyPlan {
    public static func standbys(of shard: Int, leader: String?, nodes: Set<String>, count: Int) -> [String] {
        let ranked = nodes.filter { $0 != leader }
            .map { (name: $0, rank: mix(ShardHash.fnv1a(Array("\(shard)/\($0)".utf8)))) }
            .sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.name < $1.name }
        return ranked.prefix(max(0, count)).map(\.name)
    }

    /// MurmurHash3's fmix64: every input bit moves every output bit.
    static func mix(_ x: UInt64) -> UInt64 {
        var h = x
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }
}
