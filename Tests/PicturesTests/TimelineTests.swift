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
}
