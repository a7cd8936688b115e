/// `search.*`: limits, fusion and highlighting of `search/query` (docs/configuration.md says what each does).
public struct SearchSettings: Sendable, Equatable, Decodable {
    public var defaultLimit: Int
    public var maxLimit: Int
    public var scanThreads: Int
    public var sharedScanQueries: Int
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
}
