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
    /// A clique of at least `looseSeedRecords` records whose every pair is at least this similar
    /// also seeds a group: tried once nothing else changes, from the occurrences that came to the
    /// run fresh and are still pending (`Seeding.swift`). Like τ_seed, it does not follow the
    /// background. `looseSeedRecords` 0 or this above 1: never.
    public var tauLooseSeed: Float
    public var looseSeedRecords: Int
    /// Margin by which the best group must beat the runner-up; otherwise the occurrence stays pending.
    public var delta: Float
    /// Two active groups of one category are combined when their members are this much each
    /// other's nearest neighbours: of the smaller group's members' `linkNeighbours` nearest (among
    /// its own members and those of its candidate groups nearest it), at least this share are in
    /// the other group (`Combination.swift`); above 1: never.
    public var combineLink: Float
    /// Nearest neighbours each member counts for `combineLink`.
    public var linkNeighbours: Int
    /// γ: the share must also exceed γ times what links drawn at random within the category would
    /// give (the larger group's share of the N grouped occurrences, |L| / 2N: a modularity gain),
    /// so that in a small category, where every text is among the nearest of many, neighbours
    /// alone do not combine groups.
    public var combineResolution: Float
    /// A group of more members than this is not combined (it grows by joins only), and it offers
    /// only its this many lowest ids to another group's neighbours: this bounds the work of a pair.
    public var linkRows: Int
    /// Each candidate group contributes its this many members nearest the smaller group's centroid
    /// to the neighbours counted (the smaller group contributes all of its own).
    public var linkPool: Int
    /// Automatic members whose similarity to the (new) medoid falls below this are evicted to pending.
    public var tauStay: Float
    /// A category with more grouped occurrences than this combines groups by similarity instead of
    /// by neighbours (`SimilarityCombination.swift`): two active groups whose representatives and
    /// examples accept each other's examples are combined when the mean similarity over all pairs of
    /// their members is at least `tauCombine`; above 1: never.
    public var linkScopeLimit: Int
    public var tauCombine: Float
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
    /// Rows scored per GEMM block; also the number of pending occurrences to re-check from which an
    /// assignment pass asks the scope's `PendingIndex` which of them a change can reach (and seeding
    /// reads the pool's vectors from it) instead of looking at each one.
    public var blockSize: Int
    /// c-TF-IDF keywords in a deterministic label.
    public var keywordCount: Int
    /// The background similarity (mean cosine over all pairs of a category's occurrences) at which
    /// τ_rep, τ_sup, τ_combine and τ_stay were calibrated. In a category whose background is
    /// lower, unrelated texts are less alike and one situation's texts sit at lower similarities
    /// too, so those four are lowered in proportion (`adapted(toBackground:)`); nil: the same
    /// thresholds everywhere.
    public var calibratedBackground: Float?
    /// A background at most this far below `calibratedBackground` counts as the calibrated one (two
    /// samples of one set differ by about 0.01).
    public var backgroundTolerance: Float
    /// How far above the background a model's related texts sit, against the model the thresholds
    /// were calibrated on (all-MiniLM-L6-v2: 1): `adapted(toBackground:)` places every similarity
    /// threshold this share as far above the background, in that background's units. The embedding
    /// model's preset gives it (`patterns.similarityScale`; multilingual-e5's cosines crowd closer to
    /// its background than MiniLM's do to theirs).
    public var similarityScale: Float
    /// A category's background is measured on its first this many occurrences (by id), once it
    /// has `backgroundMinimum` of them; so it stops moving once a category is that large.
    public var backgroundSample: Int
    public var backgroundMinimum: Int
    /// The level in force in a category (`PatternState.levels`) moves only when a new measure is
    /// more than this far from it, so thresholds do not move with every few entries a history gains
    /// and groups do not flap; each move is told in the refresh's `RefreshStats.levelChanges`.
    public var backgroundMargin: Float
    /// A term held by at most this share of a category's basis occurrences is specific: an
    /// automatic membership needs one shared with the group's representative and an example
    /// (`SharedElement.swift`); 0: no such evidence is asked for.
    public var evidenceMaxShare: Float
    /// A category with fewer occurrences than this needs no evidence (what is specific is not known yet).
    public var evidenceMinimum: Int
    /// Supporting examples that must hold the shared element besides the representative.
    public var evidenceExamples: Int
    /// An occurrence at least this similar to the representative needs no shared element (it
    /// follows the background like the other similarities); above 1: always needed.
    public var evidenceAbove: Float
    /// An occurrence with fewer terms than this (short texts: requests, notes of a few words) needs
    /// no shared element.
    public var evidenceMinTerms: Int
    /// Under an outside judge (`JudgedPlacement.swift`): the nearest occurrences each pending
    /// occurrence proposes to the judge (each standing for its group when it has one).
    public var judgeCandidates: Int
    /// Under an outside judge: a proposed pair must be at least this far above the scope's
    /// background level in force (mean cosine) — a floor, not a precision threshold.
    public var judgeFloor: Float
    /// A record a person dismissed from a group joins another only when its similarities to the
    /// representative and the examples clear τ_rep and τ_sup by this much (a dismissed entry is
    /// not handed to the next-best group on weaker evidence); above 1: never by similarity.
    public var dismissedMargin: Float

    public init(
        tauRep: Float = 0.40, tauSup: Float = 0.40, tauSeed: Float = 0.68, tauLooseSeed: Float = 0.40, looseSeedRecords: Int = 3, delta: Float = 0.0,
        tauStay: Float = 0.30, combineLink: Float = 0.20, linkNeighbours: Int = 10, combineResolution: Float = 16,
        linkRows: Int = 256, linkPool: Int = 64, linkScopeLimit: Int = 5000, tauCombine: Float = 0.50, candidateK: Int = 10, exemplars: Int = 3, scoreScale: Int = 10_000,
        recurringThreshold: Int = 3, relatedThreshold: Int = 2, minComparisonDenominator: Int = 5,
        maxPasses: Int = 16, blockSize: Int = 256, keywordCount: Int = 3,
        calibratedBackground: Float? = 0.22, backgroundTolerance: Float = 0.02, similarityScale: Float = 1, backgroundSample: Int = 2000,
        backgroundMinimum: Int = 20, backgroundMargin: Float = 0.02, evidenceMaxShare: Float = 0.05, evidenceMinimum: Int = 100, evidenceExamples: Int = 2, evidenceAbove: Float = 0.65,
        evidenceMinTerms: Int = 10, judgeCandidates: Int = 5, judgeFloor: Float = 0.10, dismissedMargin: Float = 0.15
    ) {
        self.dismissedMargin = dismissedMargin
        self.tauRep = tauRep
        self.tauSup = tauSup
        self.tauSeed = tauSeed
        self.tauLooseSeed = tauLooseSeed
        self.looseSeedRecords = looseSeedRecords
        self.delta = delta
        self.tauStay = tauStay
        self.combineLink = combineLink
        self.linkNeighbours = linkNeighbours
        self.combineResolution = combineResolution
        self.linkRows = linkRows
        self.linkPool = linkPool
        self.linkScopeLimit = linkScopeLimit
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
        self.calibratedBackground = calibratedBackground
        self.backgroundTolerance = backgroundTolerance
        self.similarityScale = similarityScale
        self.backgroundSample = backgroundSample
        self.backgroundMinimum = backgroundMinimum
        self.backgroundMargin = backgroundMargin
        self.evidenceMaxShare = evidenceMaxShare
        self.evidenceMinimum = evidenceMinimum
        self.evidenceExamples = evidenceExamples
        self.evidenceAbove = evidenceAbove
        self.evidenceMinTerms = evidenceMinTerms
        self.judgeCandidates = judgeCandidates
        self.judgeFloor = judgeFloor
    }

    /// The thresholds for a category whose background similarity is `level` hundredths (nil:
    /// unknown, too few occurrences). Within `backgroundTolerance` of `calibratedBackground` (b₀)
    /// they are as configured. Elsewhere (background b) every similarity threshold keeps its place
    /// between the background and 1: τ' = b + (τ − b₀)(1 − b)/(1 − b₀). So a model whose cosines
    /// all sit at 0.7–0.9 (e5), or a journal in one voice whose unrelated entries are alike, gets
    /// thresholds as far above its background, in its own units, as MiniLM's short texts do (the
    /// spread of a category's cosines shrinks with 1 − b: measured 0.126 at b 0.24 with MiniLM and
    /// 0.024 at b 0.84 with e5 on `datasets/journal`).
    /// Below b₀, τ_rep, τ_sup and τ_combine never go below the configured τ_stay (below it an
    /// occurrence could join a pair it is orthogonal to one member of), and τ_seed and τ_looseSeed
    /// are not lowered (calibrated so on BANKING77 and HWU64). Above b₀ all of them rise.
    /// `evidenceAbove` moves with them.
    /// With a `similarityScale` s other than 1 the distance above the background is also multiplied
    /// by s: τ' = b + s(τ − b₀)(1 − b)/(1 − b₀), within the tolerance too (b = b₀ there), and all of
    /// them move as above b₀ (the floors below b₀ are MiniLM's calibration).
    public func adapted(toBackground level: Int?) -> GroupingConfig {
        guard let b0 = calibratedBackground, let stretched = stretch(toBackground: level) else { return self }
        let (b, f) = stretched
        let map = { (t: Float) in b + (t - b0) * f }
        var c = self
        if b > b0 || similarityScale != 1 {
            c.tauRep = map(tauRep)
            c.tauSup = map(tauSup)
            if tauCombine <= 1 { c.tauCombine = map(tauCombine) }
            c.tauStay = map(tauStay)
            if tauSeed <= 1 { c.tauSeed = map(tauSeed) }
            if tauLooseSeed <= 1 { c.tauLooseSeed = map(tauLooseSeed) }
            if evidenceAbove <= 1 { c.evidenceAbove = map(evidenceAbove) }
            return c
        }
        if evidenceAbove <= 1 { c.evidenceAbove = max(map(tauRep), map(evidenceAbove)) }
        c.tauRep = max(tauStay, map(tauRep))
        c.tauSup = max(tauStay, map(tauSup))
        if tauCombine <= 1 { c.tauCombine = max(tauStay, map(tauCombine)) }
        c.tauStay = min(tauStay, map(tauStay))
        return c
    }

    /// The background `b` in force at `level` and the factor `f` by which a distance above it moves
    /// (`adapted(toBackground:)`), or nil where the thresholds stay as configured.
    func stretch(toBackground level: Int?) -> (b: Float, f: Float)? {
        guard let b0 = calibratedBackground, let level, b0 < 1 else { return nil }
        let hundredths = { (x: Float) in Int((Double(x) * 100).rounded()) }
        let outside = abs(hundredths(b0) - level) > hundredths(backgroundTolerance)
        guard outside || similarityScale != 1 else { return nil }
        let b = outside ? min(Float(level) / 100, 0.99) : b0
        return (b, similarityScale * (1 - b) / (1 - b0))
    }

    /// The judge's floor at background `level`: `judgeFloor` above the background, a distance that
    /// moves as every threshold's does above b₀ and with a similarity scale (so e5's crowded cosines
    /// get a floor in their own units, not 0.10 above a background of 0.84), and as configured below b₀.
    public func judgeFloor(atBackground level: Int?) -> Float {
        let b = Float(level ?? Int(((calibratedBackground ?? 0.22) * 100).rounded())) / 100
        guard let b0 = calibratedBackground, let stretched = stretch(toBackground: level), b > b0 || similarityScale != 1 else {
            return b + judgeFloor
        }
        return b + judgeFloor * stretched.f
    }

    /// The background level of `vectors` (ascending id order) in hundredths: the mean cosine over
    /// all pairs, (|Σv|² − Σ|v|²) / (n(n − 1)), summed in Double in the given order, rounded.
    public static func backgroundLevel<C: Collection>(_ vectors: C) -> Int? where C.Element == [Float] {
        let n = vectors.count
        guard n >= 2, let d = vectors.first?.count else { return nil }
        var sum = [Double](repeating: 0, count: d)
        var squares = 0.0
        for v in vectors {
            for i in 0..<min(d, v.count) {
                let x = Double(v[i])
                sum[i] += x
                squares += x * x
            }
        }
        var total = 0.0
        for x in sum { total += x * x }
        let mean = (total - squares) / (Double(n) * Double(n - 1))
        return Int((mean * 100).rounded())
    }

    /// `value` quantised to an integer at `scoreScale` (rounded half away from zero).
    @inlinable
    public func quantise(_ value: Float) -> Int { Self.quantise(value, scale: scoreScale) }

    /// `value` in units of 1/`scale`, rounded: the one rounding every threshold comparison uses.
    @usableFromInline
    static func quantise(_ value: Float, scale: Int) -> Int {
        Int((Double(value) * Double(scale)).rounded())
    }
}
