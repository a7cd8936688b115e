/// Thresholds and limits of the grouping engine. Similarities are cosine similarities of unit vectors.
///
/// Every comparison against a threshold is made on quantised values (`scoreScale`), so last-bit
/// differences between BLAS paths or machines cannot flip a decision.
public struct GroupingConfig: Sendable, Hashable, Codable {
    /// Minimum similarity to a group's representative (medoid).
    public var tauRep: Float
    /// Minimum mean similarity to the group's supporting examples.
    public var tauSup: Float
    /// Minimum pairwise similarity inside a seed clique.
    public var tauSeed: Float
    /// Margin by which the best group must beat the runner-up; otherwise the occurrence stays pending.
    public var delta: Float
    /// Two active groups of one category whose representatives and examples accept each other's
    /// examples are combined when the mean similarity over all pairs of their members is at least
    /// this (average linkage; see `Combination.swift`); above 1: never.
    public var tauCombine: Float
    /// Automatic members whose similarity to the (new) medoid falls below this are evicted to pending.
    public var tauStay: Float
    /// Number of groups proposed by centroid similarity (tag-sharing groups are added to these).
    public var candidateK: Int
    /// Number of supporting examples kept per group.
    public var exemplars: Int
    /// Quantisation scale for scores and threshold comparisons.
    public var scoreScale: Int
    /// Distinct eligible records for a recurring finding.
    public var recurringThreshold: Int
    /// Distinct eligible records for related examples.
    public var relatedThreshold: Int
    /// A period comparison is suppressed when either denominator is below this.
    public var minComparisonDenominator: Int
    /// Upper bound on assignment/seeding passes per category within one refresh.
    public var maxPasses: Int
    /// Rows scored per GEMM block; also the number of pending occurrences from which re-checks and
    /// seeding read vectors from the scope's `PendingRows` instead of looking each one up.
    public var blockSize: Int
    /// c-TF-IDF keywords in a deterministic label.
    public var keywordCount: Int

    public init(
        tauRep: Float = 0.40, tauSup: Float = 0.40, tauSeed: Float = 0.68, delta: Float = 0.0,
        tauStay: Float = 0.30, tauCombine: Float = 0.50, candidateK: Int = 10, exemplars: Int = 3, scoreScale: Int = 10_000,
        recurringThreshold: Int = 3, relatedThreshold: Int = 2, minComparisonDenominator: Int = 5,
        maxPasses: Int = 16, blockSize: Int = 256, keywordCount: Int = 3
    ) {
        self.tauRep = tauRep
        self.tauSup = tauSup
        self.tauSeed = tauSeed
        self.delta = delta
        self.tauStay = tauStay
        self.tauCombine = tauCombine
        self.candidateK = candidateK
        self.exemplars = exemplars
        self.scoreScale = scoreScale
        self.recurringThreshold = recurringThreshold
        self.relatedThreshold = relatedThreshold
        self.minComparisonDenominator = minComparisonDenominator
        self.maxPasses = maxPasses
        self.blockSize = blockSize
        self.keywordCount = keywordCount
    }

    /// `value` quantised to an integer at `scoreScale` (rounded half away from zero).
    @inlinable
    public func quantise(_ value: Float) -> Int {
        Int((Double(value) * Double(scoreScale)).rounded())
    }
}
