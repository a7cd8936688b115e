import Cluster
import KindredCore
import Testing

@Suite struct ClusterSettingsTests {
    @Test func defaultsAreTheDocumentedOnes() throws {
        let s = try ClusterSettings(Config())
        #expect(s.shards == 64 && s.failoverMs == 5000 && s.standbys == 1 && s.timeoutMs == 30_000 && s.retryMs == 10_000)
        #expect(s.snapshotEvery == 10_000 && s.snapshotEveryMs == 600_000)
    }

    @Test func aConfigurationFileSetsThem() throws {
        var config = Config()
        try config.apply(json: ["cluster": ["shards": 16, "failoverMs": 2000, "timeoutMs": 5000, "retryMs": 0]])
        let s = try ClusterSettings(config)
        #expect(s.shards == 16 && s.failoverMs == 2000 && s.timeoutMs == 5000 && s.retryMs == 0)
    }

    @Test(arguments: [("cluster.shards", 0), ("cluster.shards", 4097), ("cluster.failoverMs", 499), ("cluster.standbys", 9),
                      ("cluster.timeoutMs", 99), ("cluster.retryMs", -1),
                      ("cluster.snapshotEvery", -1), ("cluster.snapshotEveryMs", -1)])
    func aValueOutOfRangeIsRefusedNamingItsKey(key: String, value: Int64) throws {
        var config = Config()
        try config.set(key, .int(value))
        let error = #expect(throws: ConfigError.self) { try ClusterSettings(config) }
        #expect(error?.key == key && error?.reason.contains(String(value)) == true, "\(String(describing: error))")
    }
}
