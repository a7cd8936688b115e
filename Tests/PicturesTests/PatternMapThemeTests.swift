import Foundation
import Testing
@testable import Pictures

/// A theme's groups are drawn inside one dashed outline, named above it; a theme with fewer than two
/// drawn groups is not drawn; the same marks and themes give the same bytes.
@Suite struct PatternMapThemeTests {
    @Test func aThemeIsOutlinedAndNamed() throws {
        let marks = PatternMapTests.marks(12)
        let themes = [PatternMap.ThemeMark(id: 7, label: "difficulty reaching a destination <&>", groups: [2, 5, 9]),
                      PatternMap.ThemeMark(id: 8, label: "alone", groups: [3, 99])]
        let (svg, drawn) = PatternMap.render(marks, title: "t", subtitle: "s", themes: themes)
        #expect(svg.contains("theme 7: difficulty reaching a destination &lt;&amp;&gt;"))
        #expect(!svg.contains("theme 8:"))
        #expect(svg.components(separatedBy: "stroke-dasharray").count == 2)
        // The outline holds each of its groups' circles.
        let outline = try #require(svg.range(of: #"<circle cx="([0-9.]+)" cy="([0-9.]+)" r="([0-9.]+)" fill="none""#, options: .regularExpression))
        let numbers = svg[outline].split(whereSeparator: { !"0123456789.".contains($0) }).compactMap { Double($0) }
        let (cx, cy, r) = (numbers[0], numbers[1], numbers[2])
        for d in drawn where [2, 5, 9].contains(d.id) {
            #expect(((d.cx - cx) * (d.cx - cx) + (d.cy - cy) * (d.cy - cy)).squareRoot() + d.r <= r + 0.5)
        }
        #expect(PatternMap.render(marks.reversed(), title: "t", subtitle: "s", themes: themes).svg == svg)
    }
}
