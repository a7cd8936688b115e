/// The catalogue: one request type per method the service answers. The service registers its
/// handlers by these types, and tests hold the MCP tools' schemas, the Python client's method table
/// and the docs' parameter tables to it.
public enum KindredMethods {
    public static let all: [any KindredRequest.Type] = [
        RecordsUpsert.self, RecordsDelete.self, RecordsGet.self, RecordsSetPermissions.self, RecordsPurgeTombstones.self,
        SearchQuery.self, SearchSimilar.self, IndexStatus.self, IndexRebuild.self,
        OccurrencesPut.self, PatternsRefresh.self, PatternsRebuild.self, PatternsFindings.self, PatternsGroup.self,
        PatternsThemes.self, PatternsCorrect.self, PatternsCorrections.self, PatternsUndoCorrection.self, PatternsSetLabel.self,
        PatternsMap.self, PatternsTimeline.self, UsageDaily.self,
    ]

    /// The catalogue entry of `method`, if the protocol has it.
    public static func spec(_ method: String) -> MethodSpec? { all.lazy.map { $0.spec }.first { $0.method == method } }
}
