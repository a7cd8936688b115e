import Grouping
import Testing

/// Runs the benchmark at a small size to check that it works (no timing assertions).
@Suite struct BenchmarkSmokeTests {
    @Test func smallBenchmarkRunsAndPlacesTheNewOccurrence() throws {
        let t = try GroupingBenchmark.run(occurrences: 2_000, dimension: 384, categories: 2, clustersPerCategory: 20)
        #expect(t.groups > 0)
        #expect(t.placedInGroup)
        #expect(t.fullBuildSeconds >= 0 && t.placeOneSeconds >= 0)
    }
}
