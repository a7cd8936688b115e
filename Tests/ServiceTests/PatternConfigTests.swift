import Grouping
import KindredCore
import Testing
@testable import Service

/// The engine's own defaults (`GroupingConfig()`, used where no configuration is passed) are the
/// configuration's `patterns.*` defaults, so the table of defaults is one.
@Suite struct PatternConfigTests {
    @Test func theEngineDefaultsAreTheConfigurationDefaults() {
        #expect(PatternConfig(Settings().patterns).grouping == GroupingConfig())
        #expect(PatternConfig(Settings().patterns).themes == ThemeConfig())
        #expect(PatternConfig(Settings().patterns).passageOccurrences)
    }

    @Test func aConfiguredThresholdReachesTheEngine() throws {
        var config = Config()
        try config.set("patterns.tauRep", .double(0.5))
        try config.set("patterns.calibratedBackground", .double(1.5))
        let grouping = PatternConfig(Settings(config).patterns).grouping
        #expect(grouping.tauRep == 0.5)
        #expect(grouping.calibratedBackground == nil)
        #expect(grouping != GroupingConfig())
    }

    /// The similarity scale comes from the embedding model's preset (e5: 0.73, MiniLM and models
    /// without a preset: 1) unless `patterns.similarityScale` is set.
    @Test func theSimilarityScaleIsTheModelsUnlessSet() throws {
        func scale(_ sets: [(String, String)]) throws -> Float {
            var config = Config()
            for (k, v) in sets { try config.set(k, text: v) }
            let settings = Settings(config)
            return PatternConfig(settings.patterns, modelScale: EmbeddingPresets.similarityScale(settings.embedder)).grouping.similarityScale
        }
        #expect(try scale([]) == 1)
        #expect(try scale([("embedder.model", "multilingual-e5-small")]) == 0.73)
        #expect(try scale([("embedder.provider", "openai"), ("embedder.model", "intfloat/multilingual-e5-small")]) == 0.73)
        #expect(try scale([("embedder.model", "multilingual-e5-small"), ("embedder.preset", "none")]) == 1)
        #expect(try scale([("embedder.model", "nomic-embed-text")]) == 1)
        #expect(try scale([("embedder.model", "multilingual-e5-small"), ("patterns.similarityScale", "0.9")]) == 0.9)
        #expect(try scale([("patterns.similarityScale", "0.8")]) == 0.8)
    }

    /// The settings with the numeric key `d` moved off its default.
    static func moved(_ d: (key: String, value: JSONValue, doc: String)) throws -> Settings {
        var config = Config()
        switch d.value {
        case .int(let i): try config.set(d.key, .int(i + 1))
        case .double(let x): try config.set(d.key, .double(x + 0.05))
        default: Issue.record("\(d.key): not a number")
        }
        return Settings(config)
    }

    /// Every `patterns.*` threshold of the table of defaults reaches the engine: moving it moves
    /// the engine's configuration (the judge's, the themes' and the passages' keys are the service's).
    @Test func everyEngineKeyReachesTheEngine() throws {
        let serviceOnly: Set<String> = ["patterns.themes", "patterns.passageOccurrences"]
        let keys = Config.defaults.filter {
            $0.key.hasPrefix("patterns.") && !$0.key.hasPrefix("patterns.judge") && !$0.key.hasPrefix("patterns.theme") && !serviceOnly.contains($0.key)
        }
        #expect(keys.count >= 20)
        for d in keys {
            #expect(PatternConfig(try Self.moved(d).patterns).grouping != GroupingConfig(), "\(d.key) does not reach the engine")
        }
    }

    /// Every theme threshold (`patterns.theme…`, besides the switch) reaches the theme rule.
    @Test func everyThemeKeyReachesTheThemeRule() throws {
        let keys = Config.defaults.filter { $0.key.hasPrefix("patterns.theme") && $0.key != "patterns.themes" }
        #expect(keys.count == 4)
        for d in keys {
            let p = PatternConfig(try Self.moved(d).patterns)
            #expect(p.themes != ThemeConfig(), "\(d.key) does not reach the theme rule")
            #expect(p.grouping == GroupingConfig(), "\(d.key) moves the group rule")
        }
    }
}
