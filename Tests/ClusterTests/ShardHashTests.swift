import Cluster
import Testing

/// The shard function is part of a cluster's data layout: these values must never change.
struct ShardHashTests {
    @Test func fnv1aMatchesThePublishedTestVectors() {
        #expect(ShardHash.fnv1a([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(ShardHash.fnv1a(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(ShardHash.fnv1a(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test func ownersMapToFixedShards() {
        let expected: [(String, Int)] = [("alice", 7), ("bob", 20), ("owner-1", 62), ("Zo\u{00EB}", 60), ("", 37)]
        for (owner, shard) in expected {
            #expect(ShardHash.shard(owner: owner, shards: 64) == shard, "\(owner)")
        }
        #expect(ShardHash.shard(owner: "alice", shards: 1) == 0)
    }

    @Test func composedAndDecomposedSpellingsShareAShard() {
        let composed = "Zo\u{00EB}"
        let decomposed = "Zoe\u{0308}"
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        for shards in [7, 64, 1024] {
            #expect(ShardHash.shard(owner: composed, shards: shards) == ShardHash.shard(owner: decomposed, shards: shards))
        }
    }

    @Test func ownersSpreadOverEveryShard() {
        var counts = [Int](repeating: 0, count: 64)
        for i in 0..<6400 { counts[ShardHash.shard(owner: "owner-\(i)", shards: 64)] += 1 }
        #expect(counts.min()! > 50)
        #expect(counts.max()! < 150)
    }
}
