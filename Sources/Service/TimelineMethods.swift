import Grouping
import KindredCore
import JSONRPC
import Pictures
import KindredProtocol

/// `patterns/timeline`: the top recurring findings as small multiples of records per month (or per
/// longer bin when the records span many years), over the month's eligible records.
extension KindredService {
    /// At most this many bars per finding: the bin grows (1, 3, 6, 12 months, then whole years)
    /// until the records' span fits.
    static let maxTimelineBins = 72
    /// Findings drawn when `limit` is not sent.
    static let defaultTimelineFindings = 6

    func patternTimeline(_ req: PatternsTimeline, _ ctx: RequestContext) throws(ResponseError) -> PatternsTimeline.Result {
        let query = try req.query()
        let data = try pictureData(owner: req.owner, query: query, withVectors: false, ctx)
        let period = query.period
        let shown = Array(data.report.findings.prefix(req.limit ?? Self.defaultTimelineFindings))
        // The months the eligible records of the period cover.
        let months = data.eligible.values.compactMap { d -> Int? in
            guard let d, period.map({ $0.contains(d) }) ?? true else { return nil }
            return Self.monthIndex(d)
        }
        let undated = data.eligible.values.filter { $0 == nil }.count
        var bins: [(start: Int, records: Int)] = []
        var binMonths = 1
        if let first = months.min(), let last = months.max() {
            let span = last - first + 1
            for size in [1, 3, 6, 12] where span <= size * Self.maxTimelineBins { binMonths = size; break }
            if span > 12 * Self.maxTimelineBins { binMonths = 12 * ((span + 12 * Self.maxTimelineBins - 1) / (12 * Self.maxTimelineBins)) }
            // Bins start on a multiple of their size (quarters at January, April, …).
            let start = first - ((first % binMonths) + binMonths) % binMonths
            var eligiblePerBin = [Int](repeating: 0, count: (last - start) / binMonths + 1)
            for m in months { eligiblePerBin[(m - start) / binMonths] += 1 }
            bins = eligiblePerBin.enumerated().map { (start + $0.offset * binMonths, $0.element) }
        }
        let binStart = bins.first?.start ?? 0
        var series: [Timeline.Series] = []
        var out: [PatternsTimeline.Result.Panel] = []
        for f in shown {
            var counts = [Int](repeating: 0, count: bins.count)
            for e in f.evidence {
                guard let d = e.date, let m = Self.monthIndex(d), !bins.isEmpty else { continue }
                let k = (m - binStart) / binMonths
                if k >= 0 && k < counts.count { counts[k] += 1 }
            }
            let ms = bins.indices.map { Timeline.Month(month: Self.monthName(bins[$0].start), records: counts[$0], eligible: bins[$0].records) }
            var comparison: Timeline.Comparison?
            var panel = PatternsTimeline.Result.Panel(
                groupId: Int(f.groupID), label: PictureData.label(f), category: f.category, records: f.fraction.count,
                eligible: f.fraction.denominator, bins: ms.map { .init(start: $0.month, records: $0.records, eligible: $0.eligible) })
            if let c = f.comparison {
                let note = c.trend?.rawValue
                    ?? "too few eligible records to compare (fewer than \(patternConfig.grouping.minComparisonDenominator) in a period)"
                comparison = Timeline.Comparison(
                    current: .init(name: "recent", records: c.current.count, eligible: c.current.denominator),
                    previous: .init(name: "earlier", records: c.previous.count, eligible: c.previous.denominator), note: note)
                panel.comparison = .init(current: PatternJSON.count(c.current), previous: PatternJSON.count(c.previous),
                                         suppressed: c.suppressed, trend: c.trend?.rawValue)
            }
            series.append(Timeline.Series(id: f.groupID, label: PictureData.label(f), detail: PictureData.detail(f), category: f.category,
                                          records: f.fraction.count, eligible: f.fraction.denominator, months: ms, comparison: comparison))
            out.append(panel)
        }
        let per = binMonths == 1 ? "month" : binMonths == 12 ? "year" : "\(binMonths) months"
        var subtitle = "The \(series.count) most recorded pattern\(series.count == 1 ? "" : "s") of \(data.report.denominator) eligible records "
            + "(\(PictureData.describe(period))), records per \(per)"
        if let cp = query.comparePeriod { subtitle += "; recent: \(PictureData.describe(period)), earlier: \(PictureData.describe(cp))" }
        if undated > 0 { subtitle += "; \(undated) undated record\(undated == 1 ? "" : "s") not drawn" }
        let svg = Timeline.render(series, title: "Findings timeline", subtitle: subtitle + ".")
        return PatternsTimeline.Result(svg: svg, eligibleRecords: data.report.denominator, binMonths: binMonths, undatedRecords: undated, findings: out)
    }

    /// Months since year 0 of a `YYYY-MM…` date.
    static func monthIndex(_ date: String) -> Int? {
        let u = Array(date.utf8.prefix(7))
        guard u.count == 7, u[4] == UInt8(ascii: "-"),
              let y = Int(String(decoding: u[0..<4], as: UTF8.self)), let m = Int(String(decoding: u[5..<7], as: UTF8.self)),
              (1...12).contains(m) else { return nil }
        return y * 12 + (m - 1)
    }

    static func monthName(_ index: Int) -> String {
        let y = index / 12, m = index % 12 + 1
        let ys = String(y), ms = String(m)
        return String(repeating: "0", count: max(0, 4 - ys.count)) + ys + "-" + (ms.count == 1 ? "0" : "") + ms
    }
}
