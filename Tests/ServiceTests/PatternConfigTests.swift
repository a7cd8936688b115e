import Grouping
import KindredCore
import Testing
@testable import Service

/// The engine's own defaults (`GroupingConfig()`, used where no configuration is passed) are the
/// configuration's `patterns.*` defaults, so the table of defaults is one.
@Suite struct PatternConfigTests {
    @Test func theEngineDefaultsAreTheConfigurationDefaults() {
        #expect(PatternConfig(Config()).grouping == GroupingConfig())
        #expect(PatternConfig(Config()).passageOccurrences)
    }

    @Test func aConfiguredThresholdReachesTheEngine() throws {
        var config = Config()
        try config.set("patterns.tauRep", .double(0.5))
        try config.set("patterns.calibratedBackground", .double(1.5))
        let grouping = PatternConfig(config).grouping
        #expect(grouping.tauRep == 0.5)
        #expect(grouping.calibratedBackground == nil)
        #expect(grouping != GroupingConfig())
    }
}
