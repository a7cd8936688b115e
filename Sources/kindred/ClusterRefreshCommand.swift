import Cluster
import KindredCLI
import KindredCore

/// `kindred cluster refresh`: the fleet's pattern refresh, a line per shard as it ends.
enum ClusterRefreshCommand {
    static func check(_ args: Arguments) throws {
        if let p = args.value("parallel"), !(Int(p).map { (1...64).contains($0) } ?? false) {
            throw Arguments.UsageError(description: "--parallel must be an integer from 1 to 64, got '\(p)'")
        }
        if let t = args.value("timeout-ms"), !(Int64(t).map { $0 >= 1000 } ?? false) {
            throw Arguments.UsageError(description: "--timeout-ms must be an integer of at least 1000, got '\(t)'")
        }
    }

    static func run(_ connection: NATSConnection, _ args: Arguments, retryMs: Int64) throws -> Int32 {
        let json = args.has("json")
        let outcomes = try ClusterRefresh.run(connection, parallel: args.value("parallel").flatMap { Int($0) } ?? 4,
                                              timeoutMs: args.value("timeout-ms").flatMap { Int64($0) } ?? 600_000, retryMs: retryMs) { outcome in
            if !json { Output.out(line(outcome)) }
        }
        let failed = outcomes.filter { if case .failure = $0.result { return true }; return false }.count
        if json {
            Output.json(.array(outcomes.map { o in
                switch o.result {
                case .success(let r): return ["shard": .from(o.shard), "result": r]
                case .failure(let e): return ["shard": .from(o.shard), "error": e.json]
                }
            }))
        } else {
            func total(_ key: String) -> Int64 {
                outcomes.reduce(0) { sum, o in sum + ((try? o.result.get())?[key]?.intValue ?? 0) }
            }
            Output.out("refreshed \(total("owners")) owners on \(outcomes.count - failed) of \(outcomes.count) shards: "
                + "\(total("recordsGrouped")) records in \(total("activeGroups")) pattern groups, \(total("pending")) occurrences pending"
                + (failed > 0 ? "; \(failed) shards failed" : ""))
        }
        return failed > 0 ? ExitCode.failure : ExitCode.ok
    }

    /// `shard 3: 12 owners, 40 records in 5 groups (2 created, 1 changed), 3 pending, 120 ms`.
    static func line(_ outcome: ClusterRefresh.ShardOutcome) -> String {
        switch outcome.result {
        case .success(let r):
            func n(_ key: String) -> Int64 { r[key]?.intValue ?? 0 }
            return "shard \(outcome.shard): \(n("owners")) owners, \(n("recordsGrouped")) records in \(n("activeGroups")) groups "
                + "(\(n("groupsCreated")) created, \(n("groupsChanged")) changed), \(n("pending")) pending, \(n("durationMs")) ms"
        case .failure(let e):
            return "shard \(outcome.shard): failed: \(e.message)"
        }
    }
}
