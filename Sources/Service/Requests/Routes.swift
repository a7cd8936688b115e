import KindredCore
import JSONRPC

/// Every method the service answers, for registration on a server and for in-process calls alike.
extension KindredService {
    static let routes: [Route] = [
        Route(RecordUpsert.self) { s, r, c throws(ResponseError) in try s.upsert(r, c) },
        Route(RecordDelete.self) { s, r, _ throws(ResponseError) in try s.delete(r) },
        Route(RecordGet.self) { s, r, _ throws(ResponseError) in try s.get(r) },
        Route(RecordSetPermissions.self) { s, r, _ throws(ResponseError) in try s.setPermissions(r) },
        Route(RecordPurgeTombstones.self) { s, r, _ throws(ResponseError) in try s.purgeTombstones(r) },
        Route(SearchQuery.self) { s, r, c throws(ResponseError) in try s.searchQuery(r, c) },
        Route(SearchSimilar.self) { s, r, c throws(ResponseError) in try s.searchSimilar(r, c) },
        Route(IndexStatus.self) { s, r, _ throws(ResponseError) in try s.status(r) },
        Route(IndexRebuild.self) { s, _, c throws(ResponseError) in try s.rebuildIndex(c) },
        Route(OccurrencesPut.self) { s, r, c throws(ResponseError) in try s.putOccurrences(r, c) },
        Route(PatternsRefresh.self) { s, r, c throws(ResponseError) in try s.refreshPatternsJudged(owner: r.owner, c, rebuild: false) },
        Route(PatternsRebuild.self) { s, r, c throws(ResponseError) in try s.refreshPatternsJudged(owner: r.owner, c, rebuild: true) },
        Route(PatternsFindings.self) { s, r, c throws(ResponseError) in try s.findings(r, c) },
        Route(PatternsGroup.self) { s, r, _ throws(ResponseError) in try s.patternGroup(r) },
        Route(PatternsThemes.self) { s, r, c throws(ResponseError) in try s.themes(r, c) },
        Route(PatternsCorrect.self) { s, r, _ throws(ResponseError) in try s.correct(r) },
        Route(PatternsCorrections.self) { s, r, _ throws(ResponseError) in try s.corrections(r) },
        Route(PatternsUndoCorrection.self) { s, r, _ throws(ResponseError) in try s.undoCorrection(r) },
        Route(PatternsSetLabel.self) { s, r, _ throws(ResponseError) in try s.setLabel(r) },
        Route(PatternsMap.self) { s, r, c throws(ResponseError) in try s.patternMap(r, c) },
        Route(PatternsTimeline.self) { s, r, c throws(ResponseError) in try s.patternTimeline(r, c) },
        Route(UsageDaily.self) { s, r, _ throws(ResponseError) in try s.dailyUsage(r) },
    ]

    static func route(_ method: String) -> Route? { routes.first { $0.method == method } }
}
