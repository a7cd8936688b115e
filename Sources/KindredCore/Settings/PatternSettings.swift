/// `patterns.*`: the pattern engine's thresholds (the service turns them into the engine's
/// `GroupingConfig`), findings, themes and the evidence judge.
public struct PatternSettings: Sendable, Equatable, Decodable {
    public var themes: Bool
    public var themeRepFraction: Double
    public var themeSupFraction: Double
    public var themeSeedFraction: Double
    public var themeExamples: Int
    public var passageOccurrences: Bool
    public var tauRep: Double
    public var tauSup: Double
    public var tauSeed: Double
    public var tauLooseSeed: Double
    public var looseSeedRecords: Int
    public var delta: Double
    public var tauStay: Double
    public var combineLink: Double
    public var linkNeighbours: Int
    public var combineResolution: Double
    public var linkScopeLimit: Int
    public var tauCombine: Double
    /// Above 1: thresholds never follow the background.
    public var calibratedBackground: Double
    /// 0: the embedding model's preset's (`EmbeddingPresets`), 1 without one.
    public var similarityScale: Double
    public var backgroundMargin: Double
    public var evidenceMaxShare: Double
    public var evidenceExamples: Int
    public var evidenceAbove: Double
    public var evidenceMinTerms: Int
    public var evidenceMinimum: Int
    public var candidateK: Int
    public var exemplars: Int
    public var recurringThreshold: Int
    public var relatedThreshold: Int
    public var minComparisonDenominator: Int
    /// off, client or openai.
    public var judge: String
    public var judgeInstruction: String
    public var judgeTimeoutMs: Int
    public var dismissedMargin: Double
    public var judgeCandidates: Int
    public var judgeFloor: Double
    public var judgeBudget: Int
    public var judgeUrl: String
    public var judgeModel: String
    public var judgeApiKey: String

    /// The longest wait for one judge answer, in seconds (at least a millisecond).
    public var judgeTimeout: Double { Double(max(1, judgeTimeoutMs)) / 1000 }
}
