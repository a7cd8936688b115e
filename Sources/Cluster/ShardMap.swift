import Foundation

/// The cluster's shared state in its key-value bucket: the shard count (fixed when the first node
/// creates the cluster), which node leads each shard (`shards.N`, changed only by revision-checked
/// writes) and each node's last heartbeat (`nodes.NAME`, milliseconds since 1970).
public final class ShardMap: Sendable {
    let kv: KeyValue

    public init(_ kv: KeyValue) { self.kv = kv }

    /// The cluster's shard count; `creating` is recorded when the cluster has none yet.
    public func shardCount(creating: Int?) throws -> Int {
        if let creating { _ = try kv.create("shards", String(creating)) }
        guard let entry = try kv.get("shards"), let n = Int(entry.value), n > 0 else {
            throw ClusterError("the cluster has no shard count yet: no node has started")
        }
        return n
    }

    /// The node leading `shard` and the entry's revision (nil when no node has claimed it).
    public func leader(of shard: Int) throws -> KeyValue.Entry? { try kv.get("shards.\(shard)") }

    /// Takes a shard no node holds; false when another node claimed it first.
    public func claim(_ shard: Int, node: String) throws -> Bool { try kv.create("shards.\(shard)", node) != nil }

    /// Takes a shard from the leader it had at `revision`; false when the map moved meanwhile.
    public func take(_ shard: Int, node: String, revision: UInt64) throws -> Bool {
        try kv.update("shards.\(shard)", node, revision: revision) != nil
    }

    public func heartbeat(node: String) throws {
        try kv.put("nodes.\(node)", String(Self.nowMs()))
    }

    /// Every node that has sent a heartbeat, with its age in milliseconds, by name.
    public func nodes() throws -> [(name: String, ageMs: Int64)] {
        let now = Self.nowMs()
        var out: [(String, Int64)] = []
        for key in try kv.keys() where key.hasPrefix("nodes.") {
            guard let e = try kv.get(key), let at = Int64(e.value) else { continue }
            out.append((String(key.dropFirst(6)), max(0, now - at)))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A cluster failure outside a request (the command reports it and exits).
public struct ClusterError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
