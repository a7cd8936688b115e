import KindredCore
import JSONRPC
import KindredProtocol

/// Every method the service answers, for registration on a server and for in-process calls alike,
/// with how it is scheduled: reads beside each other, writes one at a time in arrival order
/// (`index/rebuild` is a read: it only adds vectors, revision-checked, so reads are not stalled).
extension KindredService {
    static let routes: [Route] = [
        Route(RecordsUpsert.self, .write) { s, r, c throws(ResponseError) in try s.upsert(r, c) },
        Route(RecordsDelete.self, .write) { s, r, _ throws(ResponseError) in try s.delete(r) },
        Route(RecordsGet.self, .read) { s, r, _ throws(ResponseError) in try s.get(r) },
        Route(RecordsSetPermissions.self, .write) { s, r, _ throws(ResponseError) in try s.setPermissions(r) },
        Route(RecordsPurgeTombstones.self, .write) { s, r, _ throws(ResponseError) in try s.purgeTombstones(r) },
        Route(SearchQuery.self, .read) { s, r, c throws(ResponseError) in try s.searchQuery(r, c) },
        Route(SearchSimilar.self, .read) { s, r, c throws(ResponseError) in try s.searchSimilar(r, c) },
        Route(IndexStatus.self, .read) { s, r, _ throws(ResponseError) in try s.status(r) },
        Route(IndexRebuild.self, .read) { s, _, c throws(ResponseError) in try s.rebuildIndex(c) },
        Route(OccurrencesPut.self, .write) { s, r, c throws(ResponseError) in try s.putOccurrences(r, c) },
        Route(PatternsRefresh.self, .write, later: { s, r, c throws(ResponseError) in try s.refreshPatternsJudged(owner: r.owner, c, rebuild: false) }),
        Route(PatternsRebuild.self, .write, later: { s, r, c throws(ResponseError) in try s.refreshPatternsJudged(owner: r.owner, c, rebuild: true) }),
        Route(PatternsFindings.self, .read) { s, r, c throws(ResponseError) in try s.findings(r, c) },
        Route(PatternsGroup.self, .read) { s, r, _ throws(ResponseError) in try s.patternGroup(r) },
        Route(PatternsThemes.self, .read) { s, r, c throws(ResponseError) in try s.themes(r, c) },
        Route(PatternsCorrect.self, .write) { s, r, _ throws(ResponseError) in try s.correct(r) },
        Route(PatternsCorrections.self, .read) { s, r, _ throws(ResponseError) in try s.corrections(r) },
        Route(PatternsUndoCorrection.self, .write) { s, r, _ throws(ResponseError) in try s.undoCorrection(r) },
        Route(PatternsSetLabel.self, .write) { s, r, _ throws(ResponseError) in try s.setLabel(r) },
        Route(PatternsMap.self, .read) { s, r, c throws(ResponseError) in try s.patternMap(r, c) },
        Route(PatternsTimeline.self, .read) { s, r, c throws(ResponseError) in try s.patternTimeline(r, c) },
        Route(UsageDaily.self, .read) { s, r, _ throws(ResponseError) in try s.dailyUsage(r) },
    ]

    static func route(_ method: String) -> Route? { routes.first { $0.method == method } }
}
