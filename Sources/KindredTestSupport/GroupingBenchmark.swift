import Grouping

/// The pattern engine's speed on synthetic data: a full build, then one placement at a time. Behind
/// `kindred-bench grouping speed --synthetic`; a unit test runs it small (no timing assertions).
public enum GroupingBenchmark {
    public struct Timings: Sendable, Hashable, Codable {
        public var occurrences: Int
        public var dimension: Int
        /// Full build of `occurrences` from an empty state (nil when the built state was given).
        public var fullBuildSeconds: Double?
        /// One refresh placing one new occurrence into the built state: the median over `placements`
        /// occurrences, each placed alone into the same built state.
        public var placeOneSeconds: Double
        /// The slowest of those placements.
        public var placeOneMaxSeconds: Double
        public var placements: Int
        public var groups: Int
        public var pending: Int
        /// How many of the placed occurrences joined a group.
        public var placedInGroup: Int
    }

    /// Builds `occurrences` synthetic occurrences (2 per record, `categories` categories with
    /// `clustersPerCategory` situations each, 20 % one-offs), times a full build, then times placing
    /// each of the next `placements` non-one-off occurrences alone (each from a new record), one after
    /// another, each into the state the previous placement returned.
    public static func run(
        occurrences n: Int = 100_000, dimension: Int = 384, categories: Int = 10,
        clustersPerCategory: Int = 400, seed: UInt64 = 1, placements: Int = 20,
        config: GroupingConfig = GroupingConfig(), built given: PatternState? = nil
    ) throws -> (timings: Timings, built: PatternState) {
        let names = (0..<categories).map { "category\($0)" }
        let all = SyntheticData.history(
            seed: seed, records: (n + 1) / 2 + 2 * max(1, placements), perRecord: 2, categories: names, clusters: clustersPerCategory,
            dimension: dimension, spread: 0.6, noiseShare: 0.2)
        var occ: [Int64: Occurrence] = [:]
        for o in all.prefix(n) { occ[o.id] = o }
        let clock = ContinuousClock()
        var state = given ?? PatternState()
        // What each refresh derived, handed to the next with the state it returned, as the service does.
        var cache = EngineCache()
        var full: Duration?
        if given == nil {
            full = try clock.measure {
                state = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), config: config,
                                                  cache: &cache).state
            }
        }
        // Each placed alone, into the state the previous placement returned (handed over, so the
        // engine updates it in place as a long-running caller would).
        let extras = all.dropFirst(n).filter { !$0.description.contains("other") }.prefix(max(1, placements))
        var current = state
        var times: [Double] = []
        var joined = 0
        for placed in extras {
            let extra = placed.withRecord("new-record-\(placed.id)")
            occ[extra.id] = extra
            let start = clock.now
            // (Told what changed, as the service is by its store's change log.)
            current = try PatternEngine.refresh(state: consume current, occurrences: occ, changes: OccurrenceChanges([extra.id]),
                                                constraints: Constraints(), config: config, cache: &cache).state
            times.append(seconds(clock.now - start))
            if current.pending[extra.id] == nil { joined += 1 }
        }
        times.sort()
        let timings = Timings(
            occurrences: n, dimension: dimension, fullBuildSeconds: full.map(seconds), placeOneSeconds: times[times.count / 2],
            placeOneMaxSeconds: times.last!, placements: times.count, groups: state.groups.count,
            pending: state.pending.count, placedInGroup: joined)
        return (timings, state)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
