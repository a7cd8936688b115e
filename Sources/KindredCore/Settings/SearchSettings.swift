/// `search.*`: limits, fusion and highlighting of `search/query`.
public struct SearchSettings: Sendable, Equatable {
    public var defaultLimit: Int
    public var maxLimit: Int
    public var scanThreads: Int
    public var batchGemmThreshold: Int
    /// `score` or `rrf`.
    public var fusion: String
    public var keywordWeight: Double
    public var keywordSpread: Double
    public var rrfK: Int
    public var candidatePool: Int
    public var maxQueryChars: Int
    public var maxKeywordTerms: Int
    /// Rank keyword search from the in-memory copy of the FTS5 index.
    public var keywordIndex: Bool
    public var highlightChars: Int

    public init(_ c: Config) {
        defaultLimit = c.int("search.defaultLimit")
        maxLimit = c.int("search.maxLimit")
        scanThreads = c.int("search.scanThreads")
        batchGemmThreshold = c.int("search.batchGemmThreshold")
        fusion = c.string("search.fusion")
        keywordWeight = c.double("search.keywordWeight")
        keywordSpread = c.double("search.keywordSpread")
        rrfK = c.int("search.rrfK")
        candidatePool = c.int("search.candidatePool")
        maxQueryChars = c.int("search.maxQueryChars")
        maxKeywordTerms = c.int("search.maxKeywordTerms")
        keywordIndex = c.bool("search.keywordIndex")
        highlightChars = c.int("search.highlightChars")
    }
}
