import Foundation

/// Which shard an owner lives in: FNV-1a (64-bit) of the owner's UTF-8 bytes in Unicode
/// normalization form C, modulo the cluster's shard count. Stable across processes, machines and
/// releases (it is part of the cluster's data layout: changing it would move every owner), and the
/// same for the composed and decomposed spellings of a name.
public enum ShardHash {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// FNV-1a over `bytes`.
    public static func fnv1a(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var h = offsetBasis
        for b in bytes {
            h ^= UInt64(b)
            h = h &* prime
        }
        return h
    }

    /// The shard of `owner` among `shards` (0 ..< shards).
    public static func shard(owner: String, shards: Int) -> Int {
        precondition(shards > 0, "a cluster has at least one shard")
        return Int(fnv1a(owner.precomposedStringWithCanonicalMapping.utf8) % UInt64(shards))
    }
}
