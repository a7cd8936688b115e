/// Names the cluster's processes agree on in NATS: the shard map bucket, the write log stream and
/// the subjects of requests and writes. Part of the cluster's data layout.
public enum ClusterLayout {
    /// The key-value bucket holding the shard count, shard → node and node heartbeats.
    public static let bucket = "kindred-cluster"
    /// The stream every shard's writes are appended to, one subject per shard.
    public static let writeStream = "KINDRED_WRITES"
    public static let writeSubjects = "kindred.writes.*"
    /// Shard count of a new cluster when none is given.
    public static let defaultShards = 64

    /// The stream holding the shards' snapshots: each snapshot's header and chunks on a subject of
    /// its own, `kindred.snapshots.N.ID`, and a final marker per complete snapshot on
    /// `kindred.snapshots.N.done`.
    public static let snapshotStream = "KINDRED_SNAPSHOTS"
    public static let snapshotSubjects = "kindred.snapshots.>"

    public static func writeSubject(_ shard: Int) -> String { "kindred.writes.\(shard)" }
    public static func snapshotSubject(_ shard: Int, id: String) -> String { "kindred.snapshots.\(shard).\(id)" }
    public static func snapshotMarkers(_ shard: Int) -> String { "kindred.snapshots.\(shard).done" }
    /// Where requests for a shard are sent; only the node leading the shard listens.
    public static func requestSubject(_ shard: Int) -> String { "kindred.shard.\(shard)" }

    /// Where a node says (its name) that its connection was made again to a nats-server: requests
    /// routers sent it meanwhile, or its answers, may have been lost, and the routers send theirs again.
    public static let reconnectedSubject = "kindred.reconnected"

    /// Where a node says (the shard's number) that it starts serving a shard: routers send the
    /// requests in flight for it again (the node that had them may have died with them).
    public static let servingSubject = "kindred.serving"

    /// Where a node answers what it holds besides the shards it leads (its standby copies).
    public static func nodeSubject(_ name: String) -> String { "kindred.node.\(name)" }

    /// A node name is a key part in the bucket: letters, digits, `-` and `_`, 1 to 64 of them.
    public static func isValidNodeName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
    }
}
