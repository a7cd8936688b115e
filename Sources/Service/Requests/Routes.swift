import KindredCore
import JSONRPC
import KindredProtocol

/// Every method the service answers, for registration on a server and for in-process calls alike.
extension KindredService {
    static let routes: [Route] = [
        Route(RecordsUpsert.Checked.self) { s, r, c throws(ResponseError) in try s.upsert(r, c) },
        Route(RecordsDelete.Checked.self) { s, r, _ throws(ResponseError) in try s.delete(r) },
        Route(RecordsGet.Checked.self) { s, r, _ throws(ResponseError) in try s.get(r) },
        Route(RecordsSetPermissions.Checked.self) { s, r, _ throws(ResponseError) in try s.setPermissions(r) },
        Route(RecordsPurgeTombstones.Checked.self) { s, r, _ throws(ResponseError) in try s.purgeTombstones(r) },
        Route(SearchQuery.Checked.self) { s, r, c throws(ResponseError) in try s.searchQuery(r, c) },
        Route(SearchSimilar.Checked.self) { s, r, c throws(ResponseError) in try s.searchSimilar(r, c) },
        Route(IndexStatus.Checked.self) { s, r, _ throws(ResponseError) in try s.status(r) },
        Route(IndexRebuild.Checked.self) { s, _, c throws(ResponseError) in try s.rebuildIndex(c) },
        Route(OccurrencesPut.Checked.self) { s, r, c throws(ResponseError) in try s.putOccurrences(r, c) },
        Route(PatternsRefresh.Checked.self) { s, r, c throws(ResponseError) in try s.refreshPatternsJudged(owner: r.owner, c, rebuild: false) },
        Route(PatternsRebuild.Checked.self) { s, r, c throws(ResponseError) in try s.refreshPatternsJudged(owner: r.owner, c, rebuild: true) },
        Route(PatternsFindings.Checked.self) { s, r, c throws(ResponseError) in try s.findings(r, c) },
        Route(PatternsGroup.Checked.self) { s, r, _ throws(ResponseError) in try s.patternGroup(r) },
        Route(PatternsThemes.Checked.self) { s, r, c throws(ResponseError) in try s.themes(r, c) },
        Route(PatternsCorrect.Checked.self) { s, r, _ throws(ResponseError) in try s.correct(r) },
        Route(PatternsCorrections.Checked.self) { s, r, _ throws(ResponseError) in try s.corrections(r) },
        Route(PatternsUndoCorrection.Checked.self) { s, r, _ throws(ResponseError) in try s.undoCorrection(r) },
        Route(PatternsSetLabel.Checked.self) { s, r, _ throws(ResponseError) in try s.setLabel(r) },
        Route(PatternsMap.Checked.self) { s, r, c throws(ResponseError) in try s.patternMap(r, c) },
        Route(PatternsTimeline.Checked.self) { s, r, c throws(ResponseError) in try s.patternTimeline(r, c) },
        Route(UsageDaily.Checked.self) { s, r, _ throws(ResponseError) in try s.dailyUsage(r) },
    ]

    static func route(_ method: String) -> Route? { routes.first { $0.method == method } }
}
