import Grouping
import KindredTestSupport
import Testing

/// Runs the benchmark at a small size to check that it works (no timing assertions).
@Suite struct BenchmarkSmokeTests {
    @Test func smallBenchmarkRunsAndPlacesTheNewOccurrences() throws {
        let (t, built) = try GroupingBenchmark.run(occurrences: 2_000, dimension: 384, categories: 2, clustersPerCategory: 20, placements: 10)
        #expect(t.groups > 0 && t.fullBuildSeconds != nil)
        #expect(t.placements == 10)
        // Every placed occurrence comes from an existing situation: most of them join its group.
        #expect(t.placedInGroup * 2 >= t.placements)
        #expect(t.placeOneSeconds <= t.placeOneMaxSeconds)
        // Given the built state (as `--state` loads it), the build is skipped and the same
        // occurrences are placed the same way.
        let (again, _) = try GroupingBenchmark.run(occurrences: 2_000, dimension: 384, categories: 2, clustersPerCategory: 20, placements: 10,
                                                   built: built)
        #expect(again.fullBuildSeconds == nil)
        #expect(again.groups == t.groups && again.pending == t.pending && again.placedInGroup == t.placedInGroup)
    }
}
