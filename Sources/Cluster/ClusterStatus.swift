public import KindredCore

/// What `kindred cluster status` reports: every shard with its leader, the last sequence of its
/// write log and of its first write the log still holds (`logFirst`: the log is trimmed below the
/// shard's snapshots), its newest snapshot, the sequence its leader has applied and the difference
/// (lag), its standby copies with theirs; every node with the age of its last heartbeat and whether it is drained.
public enum ClusterStatus {
    public static func read(_ connection: NATSConnection) throws -> JSONValue {
        let map = ShardMap(try KeyValue(connection, bucket: ClusterLayout.bucket, replicas: nil))
        let shards = try map.shardCount(creating: nil)
        let members = try map.nodes()
        let snapshots = SnapshotStore(reading: connection)
        // Each node heard from lately tells its standby copies and the sequence each has applied
        // (members stay listed after they stop: a drained node, a machine gone).
        var copies: [Int: [(node: String, applied: Int64)]] = [:]
        for node in members where (node.ageMs ?? .max) < 30_000 {
            guard let answer = try? connection.request(ClusterLayout.nodeSubject(node.name), [], timeoutMs: 1000),
                  let status = try? Wire.decodeAnswer(answer) else { continue }
            for copy in status["standbys"]?.arrayValue ?? [] {
                if let shard = copy["shard"]?.intValue, let applied = copy["applied"]?.intValue { copies[Int(shard), default: []].append((node.name, applied)) }
            }
        }
        var rows: [JSONValue] = []
        for shard in 0..<shards {
            var row: JSONObject = ["shard": .from(shard)]
            let leader = try map.leader(of: shard).flatMap { $0.value.isEmpty ? nil : $0.value }
            row["leader"] = .from(leader)
            let last = try connection.lastSequence(stream: ClusterLayout.writeStream, subject: ClusterLayout.writeSubject(shard))
            row["logSequence"] = .int(Int64(last))
            row["logFirst"] = .int(Int64(try connection.next(stream: ClusterLayout.writeStream, subject: ClusterLayout.writeSubject(shard), from: 1)?.sequence ?? 0))
            // (A cluster made before snapshots has no snapshot stream: null.)
            row["snapshot"] = (try? snapshots.newest(shard: shard))?.map { ["id": .string($0.id), "sequence": .int(Int64($0.sequence)), "bytes": .from($0.size), "logFrom": .int(Int64($0.logFrom))] } ?? .null
            if leader != nil, let applied = probe(connection, shard: shard, timeoutMs: 2000)?["applied"]?.intValue {
                row["applied"] = .int(applied)
                row["lag"] = .int(Int64(last) - applied)
            } else {
                row["applied"] = .null
                row["lag"] = .null
            }
            row["standbys"] = .array((copies[shard] ?? []).sorted { $0.node < $1.node }.map {
                ["node": .string($0.node), "applied": .int($0.applied), "lag": .int(Int64(last) - $0.applied)]
            })
            rows.append(.object(row))
        }
        let drained = try map.drained()
        let nodes: [JSONValue] = members.map {
            ["name": .string($0.name), "heartbeatAgeMs": $0.ageMs.map { .int($0) } ?? .null, "drained": .bool(drained.contains($0.name))]
        }
        return ["shards": .array(rows), "nodes": .array(nodes)]
    }

    /// The answer of the node serving the shard now (`{shard, node, applied}`), or nil when none
    /// answers within `timeoutMs`.
    static func probe(_ connection: NATSConnection, shard: Int, timeoutMs: Int64) -> JSONValue? {
        guard let answer = try? connection.request(ClusterLayout.requestSubject(shard), Wire.request(NodeMethods.shardStatus, nil), timeoutMs: timeoutMs) else {
            return nil
        }
        return try? Wire.decodeAnswer(answer)
    }
}
