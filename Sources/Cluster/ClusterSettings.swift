public import KindredCore

/// The `cluster.*` configuration keys, checked: a value out of range is an error naming its key.
/// The commands' flags (`--shards`, `--failover-ms`, `--timeout-ms`) override them.
public struct ClusterSettings: Sendable, Equatable {
    /// Shard count of a new cluster (recorded by the first node; fixed once the cluster exists).
    public var shards: Int
    /// A node silent this long is taken as gone: others take its shards.
    public var failoverMs: Int
    /// Other nodes keeping a copy of each shard, applying its log as it grows.
    public var standbys: Int
    /// How long a router awaits a node's answer before answering `shardUnavailable`.
    public var timeoutMs: Int64
    /// How long a router asks again for a shard no node serves (it is starting or moving).
    public var retryMs: Int64

    /// A shard's leader snapshots it after this many writes since the last snapshot (0: not by count).
    public var snapshotEvery: Int
    /// ...or once this long has passed since it, when the shard took a write (0: not by time).
    public var snapshotEveryMs: Int

    public static let shardRange = 1...4096
    public static let leastFailoverMs = 500
    public static let standbyRange = 0...8
    public static let leastTimeoutMs: Int64 = 100

    public init(_ config: Config) throws(ConfigError) {
        let keys = Settings(config).cluster
        shards = keys.shards
        guard Self.shardRange.contains(shards) else {
            throw ConfigError(key: "cluster.shards", reason: "expected an integer from 1 to 4096, got \(shards)")
        }
        failoverMs = keys.failoverMs
        guard failoverMs >= Self.leastFailoverMs else {
            throw ConfigError(key: "cluster.failoverMs", reason: "expected at least \(Self.leastFailoverMs) (milliseconds), got \(failoverMs)")
        }
        standbys = keys.standbys
        guard Self.standbyRange.contains(standbys) else {
            throw ConfigError(key: "cluster.standbys", reason: "expected an integer from 0 to 8, got \(standbys)")
        }
        timeoutMs = Int64(keys.timeoutMs)
        guard timeoutMs >= Self.leastTimeoutMs else {
            throw ConfigError(key: "cluster.timeoutMs", reason: "expected at least \(Self.leastTimeoutMs) (milliseconds), got \(timeoutMs)")
        }
        retryMs = Int64(keys.retryMs)
        guard retryMs >= 0 else {
            throw ConfigError(key: "cluster.retryMs", reason: "expected 0 or more (milliseconds), got \(retryMs)")
        }
        snapshotEvery = keys.snapshotEvery
        guard snapshotEvery >= 0 else {
            throw ConfigError(key: "cluster.snapshotEvery", reason: "expected 0 or more (writes), got \(snapshotEvery)")
        }
        snapshotEveryMs = keys.snapshotEveryMs
        guard snapshotEveryMs >= 0 else {
            throw ConfigError(key: "cluster.snapshotEveryMs", reason: "expected 0 or more (milliseconds), got \(snapshotEveryMs)")
        }
    }
}
