import Foundation
import Testing
@testable import Pictures

@Suite struct TimelineTests {
    static let months = ["2025-01", "2025-02", "2025-03"]

    static func series(comparison: Bool) -> [Timeline.Series] {
        [Timeline.Series(id: 3, label: "missed the train & <ran>", detail: "Group 3", category: "theme", records: 4, eligible: 30,
                         months: zip(months, [(1, 10), (0, 8), (3, 12)]).map { .init(month: $0.0, records: $0.1.0, eligible: $0.1.1) },
                         comparison: comparison ? .init(current: .init(name: "recent", records: 3, eligible: 12),
                                                         previous: .init(name: "earlier", records: 1, eligible: 18),
                                                         note: "recorded more often recently") : nil)]
    }

    @Test func denominatorsAndFractionsAreWritten() {
        let svg = Timeline.render(Self.series(comparison: true), title: "t", subtitle: "s")
        #expect(svg.contains(">4 of 30 eligible records</text>"))
        #expect(svg.contains("<title>2025-03: 3 of 12 eligible records</title>"))
        #expect(svg.contains(">recent: 3 of 12 (25%)</text>"))
        #expect(svg.contains(">earlier: 1 of 18 (6%)</text>"))
        #expect(svg.contains("missed the train &amp; &lt;ran&gt;"))
    }

    @Test func aMonthWithoutRecordsDrawsNoBar() {
        let svg = Timeline.render(Self.series(comparison: false), title: "t", subtitle: "s")
        let february = svg.split(separator: "\n").first { $0.contains("2025-02: 0 of 8") }
        #expect(february?.components(separatedBy: "<rect").count == 2)
        #expect(Timeline.render(Self.series(comparison: false), title: "t", subtitle: "s") == svg)
    }

    /// Month names under the bars: every third month from the first, the last when far enough.
    @Test func everyThirdMonthIsNamed() {
        let names = (0..<14).map { k in "20\(25 + (k / 12))-" + String(format: "%02d", k % 12 + 1) }
        let series = [Timeline.Series(id: 1, label: "l", detail: "d", category: "c", records: 14, eligible: 140,
                                      months: names.map { .init(month: $0, records: 1, eligible: 10) }, comparison: nil)]
        let svg = Timeline.render(series, title: "t", subtitle: "s")
        let named = names.filter { svg.contains(">\($0)</text>") }
        #expect(named == ["2025-01", "2025-04", "2025-07", "2025-10", "2026-01", "2026-02"])
    }

    /// With bars too narrow for a name every third month, every sixth (ninth, …) is named, never overlapping.
    @Test func narrowBarsNameFewerMonths() {
        let names = (0..<72).map { k in "\(2020 + k / 12)-" + String(format: "%02d", k % 12 + 1) }
        let series = [Timeline.Series(id: 1, label: "l", detail: "d", category: "c", records: 72, eligible: 720,
                                      months: names.map { .init(month: $0, records: 1, eligible: 10) }, comparison: nil)]
        let svg = Timeline.render(series, title: "t", subtitle: "s")
        let named = names.indices.filter { svg.contains(">\(names[$0])</text>") }
        #expect(named.count >= 6 && named.count <= 14)
        let gaps = zip(named, named.dropFirst()).map { $1 - $0 }
        #expect(gaps.dropLast().allSatisfy { $0 == gaps[0] && $0 % 3 == 0 })
    }
}
