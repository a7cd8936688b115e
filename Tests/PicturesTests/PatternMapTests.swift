import Foundation
import Testing
@testable import Pictures

@Suite struct PatternMapTests {
    static func marks(_ n: Int, hostile: Bool = false) -> [PatternMap.Mark] {
        (0..<n).map { i in
            let angle = Double(i) * 2.399963
            return PatternMap.Mark(id: Int64(i + 1), label: hostile && i == 0 ? "<script>x</script> & co" : "label number \(i)",
                                   detail: "group \(i + 1)", category: ["place", "person", "theme"][i % 3], records: 2 + (i * 7) % 11,
                                   x: cos(angle) * Double(i), y: sin(angle) * Double(i))
        }
    }

    @Test func sameMarksGiveTheSameBytes() {
        let a = PatternMap.render(Self.marks(30), title: "t", subtitle: "s").svg
        let b = PatternMap.render(Self.marks(30).reversed(), title: "t", subtitle: "s").svg
        #expect(a == b)
    }

    @Test func labelsBesideCirclesNeverOverlap() {
        let marks = Self.marks(40)
        let (svg, drawn) = PatternMap.render(marks, title: "t", subtitle: "s")
        let area = Box(x: 20, y: 60, width: 760, height: 520)
        let placer = LabelPlacer(area: area, fontSize: PatternMap.fontSize)
        let circles = drawn.map { LabelPlacer.Circle(x: $0.cx, y: $0.cy, r: $0.r) }
        let placed = placer.place(marks.map(\.label), circles: circles, order: Array(circles.indices)).compactMap { $0 }
        #expect(placed.count > marks.count / 2)
        for i in placed.indices {
            #expect(placed[i].box.inside(area))
            for c in circles { #expect(!placed[i].box.touches(cx: c.x, cy: c.y, r: c.r)) }
            for j in placed.indices where j > i { #expect(!placed[i].box.overlaps(placed[j].box, margin: 0)) }
        }
        // Every label is drawn exactly once, beside its circle or in the key.
        for m in marks {
            let beside = svg.components(separatedBy: ">\(m.label)</text>").count - 1
            let keyed = svg.components(separatedBy: ". \(m.label)</text>").count - 1
            #expect(beside + keyed == 1, "\(m.label)")
        }
    }

    @Test func circleAreaIsProportionalToRecords() {
        let (_, drawn) = PatternMap.render([
            .init(id: 1, label: "a", detail: "a", category: "c", records: 4, x: 0, y: 0),
            .init(id: 2, label: "b", detail: "b", category: "c", records: 16, x: 1, y: 1),
        ], title: "t", subtitle: "s")
        #expect(abs(drawn[1].r / drawn[0].r - 2) < 1e-9)
    }

    @Test func hostileTextIsEscapedAndNothingActiveIsWritten() {
        let svg = PatternMap.render(Self.marks(5, hostile: true), title: "<b>&", subtitle: "x").svg
        #expect(!svg.contains("<script"))
        #expect(svg.contains("&lt;script&gt;x&lt;/script&gt; &amp; co"))
        for banned in ["href", "<image", "<foreignObject", "url(", "@import", "javascript:", "onload"] { #expect(!svg.contains(banned)) }
    }

    /// Groups all of one category (no extractor) are coloured by the kind of their records, with a
    /// legend of the kinds and the axes said in words.
    @Test func uniformCategoriesAreColouredByKind() {
        let marks: [PatternMap.Mark] = (0..<6).map { (i: Int) -> PatternMap.Mark in
            let kind = i < 4 ? "dream" : "note"
            return PatternMap.Mark(id: Int64(i + 1), label: "g\(i)", detail: "d", category: "passage", kind: kind,
                                   records: 3, x: Double(i), y: Double(i % 2))
        }
        let svg = PatternMap.render(marks, title: "t", subtitle: "s", colouring: .kind).svg
        #expect(svg.contains(">dream (4)</text>") && svg.contains(">note (2)</text>"))
        #expect(svg.contains(">Colour: kind of entry</text>"))
        #expect(svg.contains(">Closer circles are more alike. Circle area: distinct records.</text>"))
        let fills = Set(svg.components(separatedBy: "fill=\"#").dropFirst().map { String($0.prefix(6)) })
        #expect(fills.isSuperset(of: ["0072B2", "E69F00"]))
        let byCategory = PatternMap.render(marks, title: "t", subtitle: "s").svg
        #expect(byCategory.contains(">passage (6)</text>") && !byCategory.contains("E69F00"))
    }
}
