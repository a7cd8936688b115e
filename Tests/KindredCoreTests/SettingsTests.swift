import Testing
@testable import KindredCore

/// `Settings` decodes every key of the one table of defaults (`Config.defaults`), each into its own
/// field: moving any one key moves the settings, and only the area it names. (A settings property
/// that names no key stops `Settings(config)` at once.)
@Suite struct SettingsTests {
    static func moved(_ value: JSONValue) -> JSONValue {
        switch value {
        case .int(let i): .int(i + 1)
        case .double(let x): .double(x + 0.5)
        case .bool(let b): .bool(!b)
        case .string(let s): .string(s + "x")
        default: value
        }
    }

    @Test func everyKeyIsDecodedIntoItsArea() throws {
        let defaults = Settings()
        for d in Config.defaults {
            var config = Config()
            try config.set(d.key, Self.moved(d.value))
            let s = Settings(config)
            #expect(s != defaults, "\(d.key) is not decoded")
            // The other areas stay as they are.
            let area = d.key.split(separator: ".").first.map(String.init) ?? ""
            let areas: [(name: String, same: Bool)] = [
                ("rpc", s.rpc == defaults.rpc), ("search", s.search == defaults.search), ("records", s.records == defaults.records),
                ("passages", s.passages == defaults.passages), ("index", s.index == defaults.index), ("embedder", s.embedder == defaults.embedder),
                ("usage", s.usage == defaults.usage), ("blas", s.blas == defaults.blas), ("ingest", s.ingest == defaults.ingest),
                ("patterns", s.patterns == defaults.patterns), ("cluster", s.cluster == defaults.cluster),
            ]
            #expect(areas.contains { $0.name == area }, "\(d.key): no settings area for \(area)")
            for a in areas where a.name != area { #expect(a.same, "\(d.key) moved \(a.name)") }
        }
    }

    @Test func secondsAreTheConfiguredMilliseconds() throws {
        var config = Config()
        try config.set("embedder.retryBaseMs", .int(250))
        try config.set("patterns.judgeTimeoutMs", .int(0))
        let s = Settings(config)
        #expect(s.embedder.retryBase == 0.25)
        #expect(s.patterns.judgeTimeout == 0.001, "a judge timeout is at least a millisecond")
        #expect(Settings().records.waitForIndexTimeout == 30)
    }
}
