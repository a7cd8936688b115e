/// Speed check on synthetic data (the only file of this module that reads a clock; nothing else
/// depends on it). Wire it to a CLI; keep timing assertions out of unit tests.
public enum GroupingBenchmark {
    public struct Timings: Sendable, Hashable, Codable {
        public var occurrences: Int
        public var dimension: Int
        /// Full build of `occurrences` from an empty state.
        public var fullBuildSeconds: Double
        /// One refresh placing one new occurrence into the built state.
        public var placeOneSeconds: Double
        public var groups: Int
        public var pending: Int
        /// The new occurrence joined a group.
        public var placedInGroup: Bool
    }

    /// Builds `occurrences` synthetic occurrences (2 per record, `categories` categories with
    /// `clustersPerCategory` situations each, 20 % one-offs), times a full build, then times placing
    /// one new occurrence of an existing situation.
    public static func run(
        occurrences n: Int = 100_000, dimension: Int = 384, categories: Int = 10,
        clustersPerCategory: Int = 400, seed: UInt64 = 1, config: GroupingConfig = GroupingConfig()
    ) throws -> Timings {
        let names = (0..<categories).map { "category\($0)" }
        let all = SyntheticData.history(
            seed: seed, records: (n + 1) / 2 + 1, perRecord: 2, categories: names, clusters: clustersPerCategory,
            dimension: dimension, spread: 0.6, noiseShare: 0.2)
        var occ: [Int64: Occurrence] = [:]
        for o in all.prefix(n) { occ[o.id] = o }
        let clock = ContinuousClock()
        var built: RefreshOutcome?
        let full = try clock.measure {
            built = try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), config: config)
        }
        let state = built!.state
        // A new occurrence: the first non-one-off occurrence beyond the built set, from a new record.
        var extra = all.dropFirst(n).first { !$0.description.contains("other") } ?? all[n]
        extra.recordID = "new-record"
        occ[extra.id] = extra
        var placed: RefreshOutcome?
        let one = try clock.measure {
            placed = try PatternEngine.refresh(state: state, occurrences: occ, constraints: Constraints(), config: config)
        }
        return Timings(
            occurrences: n, dimension: dimension, fullBuildSeconds: seconds(full), placeOneSeconds: seconds(one),
            groups: state.groups.count, pending: state.pending.count,
            placedInGroup: placed!.state.pending[extra.id] == nil)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
