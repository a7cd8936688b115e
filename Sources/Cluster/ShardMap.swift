import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The cluster's shared state in its key-value bucket: the shard count (fixed when the first node
/// creates the cluster), which node leads each shard (`shards.N`, changed only by revision-checked
/// writes), the member nodes (`members`), the drained ones (`drained`) and each node's last
/// heartbeat (`nodes.NAME`, milliseconds since 1970).
public final class ShardMap: Sendable {
    let kv: KeyValue

    public init(_ kv: KeyValue) { self.kv = kv }

    /// The cluster's shard count; `creating` is recorded when the cluster has none yet.
    public func shardCount(creating: Int?) throws -> Int {
        if let creating { _ = try kv.create("shards", String(creating)) }
        // Reads may be answered by a replica a moment behind the write that created the key.
        for attempt in 0..<50 {
            if let entry = try kv.get("shards"), let n = Int(entry.value), n > 0 { return n }
            if creating == nil && attempt == 0 { break }
            usleep(100_000)
        }
        throw ClusterError("the cluster has no shard count yet: no node has started")
    }

    /// The node leading `shard` and the entry's revision (nil when no node has claimed it; an empty
    /// value when its leader handed it back).
    public func leader(of shard: Int) throws -> KeyValue.Entry? { try kv.get("shards.\(shard)") }

    /// Takes a shard no node holds; false when another node claimed it first.
    public func claim(_ shard: Int, node: String) throws -> Bool { try kv.create("shards.\(shard)", node) != nil }

    /// Takes a shard from the leader it had at `revision`; false when the map moved meanwhile.
    public func take(_ shard: Int, node: String, revision: UInt64) throws -> Bool {
        try kv.update("shards.\(shard)", node, revision: revision) != nil
    }

    /// Leaves the shard to whichever node claims it next (the entry becomes empty); false when the
    /// map moved meanwhile.
    public func release(_ shard: Int, revision: UInt64) throws -> Bool {
        try kv.update("shards.\(shard)", "", revision: revision) != nil
    }

    /// How long ago the node last heartbeat, in milliseconds (nil when it never did).
    public func heartbeatAge(node: String) throws -> Int64? {
        try kv.get("nodes.\(node)").flatMap { Int64($0.value) }.map { max(0, Self.nowMs() - $0) }
    }

    /// The age of the node's last heartbeat as the bucket's stream leader holds it (nil when none).
    public func leaderHeartbeatAge(node: String) throws -> Int64? {
        try kv.leaderGet("nodes.\(node)").flatMap { Int64($0) }.map { max(0, Self.nowMs() - $0) }
    }

    public func heartbeat(node: String) throws {
        try kv.put("nodes.\(node)", String(Self.nowMs()))
    }

    /// Adds the node to the cluster's member list (`members`, names joined by commas), by
    /// revision-checked writes; a no-op when it is already there.
    public func join(node: String) throws { try edit("members") { $0.insert(node).inserted } }

    /// Marks the node drained (`drained`, names joined by commas): it hands its shards to the other
    /// live nodes and takes none until it starts again.
    public func drain(node: String) throws { try edit("drained") { $0.insert(node).inserted } }

    /// Clears the node's drain mark (a node that starts serves again).
    public func undrain(node: String) throws { try edit("drained") { $0.remove(node) != nil } }

    /// The nodes marked drained.
    public func drained() throws -> Set<String> { Self.names(try kv.get("drained")?.value) }

    /// Applies `change` to the set of names under `key` by revision-checked writes until one holds;
    /// writes nothing when `change` returns false.
    private func edit(_ key: String, _ change: (inout Set<String>) -> Bool) throws {
        while true {
            let entry = try kv.get(key)
            var names = Self.names(entry?.value)
            guard change(&names) else { return }
            let value = names.sorted().joined(separator: ",")
            if let entry {
                if try kv.update(key, value, revision: entry.revision) != nil { return }
            } else if try kv.create(key, value) != nil {
                return
            }
        }
    }

    static func names(_ list: String?) -> Set<String> { Set((list ?? "").split(separator: ",").map(String.init)) }

    /// Every member node with the age of its last heartbeat in milliseconds (nil when it has sent
    /// none), by name. (Listing the bucket's keys would create a consumer each time: members are
    /// one key instead.)
    public func nodes() throws -> [(name: String, ageMs: Int64?)] {
        let now = Self.nowMs()
        let names = Self.names(try kv.get("members")?.value).sorted()
        return try names.map { name in
            let at = try kv.get("nodes.\(name)").flatMap { Int64($0.value) }
            return (name, at.map { max(0, now - $0) })
        }
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// A cluster failure outside a request (the command reports it and exits).
public struct ClusterError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
