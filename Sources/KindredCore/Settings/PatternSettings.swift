/// `patterns.*`: the pattern engine's thresholds (the service turns them into the engine's
/// `GroupingConfig`), findings, themes and the evidence judge.
public struct PatternSettings: Sendable, Equatable {
    public var themes: Bool
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
    /// Seconds.
    public var judgeTimeout: Double
    public var judgeUrl: String
    public var judgeModel: String
    public var judgeApiKey: String

    public init(_ c: Config) {
        themes = c.bool("patterns.themes")
        passageOccurrences = c.bool("patterns.passageOccurrences")
        tauRep = c.double("patterns.tauRep")
        tauSup = c.double("patterns.tauSup")
        tauSeed = c.double("patterns.tauSeed")
        tauLooseSeed = c.double("patterns.tauLooseSeed")
        looseSeedRecords = c.int("patterns.looseSeedRecords")
        delta = c.double("patterns.delta")
        tauStay = c.double("patterns.tauStay")
        combineLink = c.double("patterns.combineLink")
        linkNeighbours = c.int("patterns.linkNeighbours")
        combineResolution = c.double("patterns.combineResolution")
        linkScopeLimit = c.int("patterns.linkScopeLimit")
        tauCombine = c.double("patterns.tauCombine")
        calibratedBackground = c.double("patterns.calibratedBackground")
        backgroundMargin = c.double("patterns.backgroundMargin")
        evidenceMaxShare = c.double("patterns.evidenceMaxShare")
        evidenceExamples = c.int("patterns.evidenceExamples")
        evidenceAbove = c.double("patterns.evidenceAbove")
        evidenceMinTerms = c.int("patterns.evidenceMinTerms")
        evidenceMinimum = c.int("patterns.evidenceMinimum")
        candidateK = c.int("patterns.candidateK")
        exemplars = c.int("patterns.exemplars")
        recurringThreshold = c.int("patterns.recurringThreshold")
        relatedThreshold = c.int("patterns.relatedThreshold")
        minComparisonDenominator = c.int("patterns.minComparisonDenominator")
        judge = c.string("patterns.judge")
        judgeInstruction = c.string("patterns.judgeInstruction")
        judgeTimeout = Double(max(1, c.int("patterns.judgeTimeoutMs"))) / 1000
        judgeUrl = c.string("patterns.judgeUrl")
        judgeModel = c.string("patterns.judgeModel")
        judgeApiKey = c.string("patterns.judgeApiKey")
    }
}
