/// The pattern map: one circle per group at its 2-D position (the caller's projection of the
/// group centroids), circle area proportional to its distinct records, colour by category (or by
/// the kind of its records, when the caller says so), a short label beside each circle (never
/// overlapping), a legend of the colours with what closeness means, and a `<title>` on every mark
/// for hover text.
public enum PatternMap {
    public struct Mark: Sendable, Equatable {
        public var id: Int64
        /// The short label drawn beside the circle.
        public var label: String
        /// The hover text of the circle.
        public var detail: String
        public var category: String
        /// The kind of the group's records ("dream", "note"; "" for records without one).
        public var kind: String
        public var records: Int
        public var x: Double
        public var y: Double

        public init(id: Int64, label: String, detail: String, category: String, kind: String = "", records: Int, x: Double, y: Double) {
            self.id = id
            self.label = label
            self.detail = detail
            self.category = category
            self.kind = kind
            self.records = records
            self.x = x
            self.y = y
        }
    }

    /// What a circle's colour tells.
    public enum Colouring: Sendable {
        case category
        /// The kind of the group's records: for an owner whose groups are all of one category (no
        /// extractor: every group is `passage`), where colour by category would say nothing.
        case kind

        func key(_ m: Mark) -> String {
            switch self {
            case .category: m.category
            case .kind: m.kind.isEmpty ? "no kind" : m.kind
            }
        }

        var name: String { self == .category ? "category" : "kind of entry" }
    }

    /// Where a mark was drawn (picture coordinates), for callers that annotate the picture.
    public struct Drawn: Sendable, Equatable {
        public var id: Int64
        public var cx: Double, cy: Double, r: Double
        /// False when the label went to the key below the map (no free place beside the circle).
        public var labelBeside: Bool
    }

    /// A theme: groups drawn together inside one dashed outline, the theme named above it.
    public struct ThemeMark: Sendable, Equatable {
        public var id: Int64
        public var label: String
        /// The theme's groups among the marks.
        public var groups: [Int64]

        public init(id: Int64, label: String, groups: [Int64]) {
            self.id = id
            self.label = label
            self.groups = groups
        }
    }

    public static let width = 800.0
    static let fontSize = 12.0
    static let maxRadius = 30.0
    static let minRadius = 4.0

    /// The SVG text and where each mark went. The same marks always give the same bytes.
    public static func render(_ marks: [Mark], title: String, subtitle: String, themes: [ThemeMark] = [],
                              colouring: Colouring = .category) -> (svg: String, drawn: [Drawn]) {
        let marks = marks.sorted { $0.id < $1.id }
        let categories = Palette.assign(marks.map(colouring.key))
        var doc = SVGDocument(width: width, height: 0)
        doc.text(title, x: 20, y: 28, size: 18, weight: "bold")
        let top = doc.paragraph(subtitle, x: 20, y: 48, size: 12, width: width - 40, fill: "#555555")
        let plot = Box(x: 20, y: top, width: width - 40, height: 520)

        let maxRecords = max(1, marks.map(\.records).max() ?? 1)
        func radius(_ n: Int) -> Double { max(minRadius, maxRadius * (Double(max(n, 0)) / Double(maxRecords)).squareRoot()) }

        // One scale for both axes (distances stay true), the points centred in the plot.
        let inset = maxRadius + 6
        let xs = marks.map(\.x), ys = marks.map(\.y)
        let (x0, x1) = (xs.min() ?? 0, xs.max() ?? 0), (y0, y1) = (ys.min() ?? 0, ys.max() ?? 0)
        let spanX = x1 - x0, spanY = y1 - y0
        let usableW = plot.width - 2 * inset - 160, usableH = plot.height - 2 * inset
        let scale = min(spanX > 0 ? usableW / spanX : .infinity, spanY > 0 ? usableH / spanY : .infinity)
        let s = scale.isFinite ? scale : 0
        let midX = plot.x + plot.width / 2, midY = plot.y + plot.height / 2
        let circles = marks.map { m in
            LabelPlacer.Circle(x: midX + (m.x - (x0 + x1) / 2) * s,
                               // Up is positive on the second axis.
                               y: midY - (m.y - (y0 + y1) / 2) * s, r: radius(m.records))
        }

        doc.add("<rect x=\"\(SVGText.number(plot.x))\" y=\"\(SVGText.number(plot.y))\" width=\"\(SVGText.number(plot.width))\" "
                + "height=\"\(SVGText.number(plot.height))\" fill=\"#fafafa\" stroke=\"#dddddd\"/>")
        if marks.isEmpty {
            doc.text("No groups with at least two records yet: add records, then refresh the patterns.",
                     x: midX, y: midY, size: 14, anchor: "middle", fill: "#555555")
        }
        // Themes underneath everything: a dashed circle around their groups, the theme's name above it.
        for t in themes.sorted(by: { $0.id < $1.id }) {
            let inside = marks.indices.filter { t.groups.contains(marks[$0].id) }
            guard inside.count >= 2 else { continue }
            let cx = inside.map { circles[$0].x }.reduce(0, +) / Double(inside.count)
            let cy = inside.map { circles[$0].y }.reduce(0, +) / Double(inside.count)
            let r = inside.map { i in ((circles[i].x - cx) * (circles[i].x - cx) + (circles[i].y - cy) * (circles[i].y - cy)).squareRoot() + circles[i].r }
                .max()! + 8
            let name = "theme \(t.id): \(SVGText.shorten(t.label, max: 40))"
            doc.add("<g><title>\(SVGText.escape(name))</title><circle cx=\"\(SVGText.number(cx))\" cy=\"\(SVGText.number(cy))\" r=\"\(SVGText.number(r))\" "
                    + "fill=\"none\" stroke=\"#777777\" stroke-width=\"1.2\" stroke-dasharray=\"5 4\"/>")
            doc.text(name, x: cx, y: max(plot.y + 14, cy - r - 4), size: 11, anchor: "middle", fill: "#555555")
            doc.add("</g>")
        }
        // Largest first underneath, so small circles stay visible on top.
        let drawOrder = marks.indices.sorted { (marks[$0].records, marks[$1].id) > (marks[$1].records, marks[$0].id) }
        for i in drawOrder {
            let m = marks[i], c = circles[i]
            let colour = categories[colouring.key(m)] ?? "#888888"
            doc.add("<circle cx=\"\(SVGText.number(c.x))\" cy=\"\(SVGText.number(c.y))\" r=\"\(SVGText.number(c.r))\" fill=\"\(colour)\" "
                    + "fill-opacity=\"0.55\" stroke=\"\(colour)\" stroke-width=\"1.5\">\(SVGDocument.title(m.detail))</circle>")
        }

        let placer = LabelPlacer(area: plot, fontSize: fontSize)
        let placed = placer.place(marks.map(\.label), circles: circles, order: drawOrder)
        var keyed: [Int] = []
        for i in marks.indices {
            let c = circles[i]
            guard let p = placed[i] else { keyed.append(i); continue }
            if p.leader {
                let tx = min(max(c.x, p.box.x), p.box.x + p.box.width), ty = min(max(c.y, p.box.y), p.box.y + p.box.height)
                doc.add("<line x1=\"\(SVGText.number(c.x))\" y1=\"\(SVGText.number(c.y))\" x2=\"\(SVGText.number(tx))\" "
                        + "y2=\"\(SVGText.number(ty))\" stroke=\"#999999\" stroke-width=\"0.8\"/>")
            }
            doc.add("<g>\(SVGDocument.title(marks[i].detail))")
            doc.text(marks[i].label, x: p.textX, y: p.baseline, size: fontSize)
            doc.add("</g>")
        }
        // Labels without a free place: a number in the circle, the label in the key below.
        for (n, i) in keyed.enumerated() {
            let c = circles[i]
            doc.add("<g>\(SVGDocument.title(marks[i].detail))")
            doc.text("\(n + 1)", x: c.x, y: c.y + 4, size: 11, anchor: "middle", weight: "bold")
            doc.add("</g>")
        }

        var y = plot.y + plot.height + 24
        doc.text("Closer circles are more alike. Circle area: distinct records.", x: 20, y: y, size: 12, fill: "#555555")
        y += 20
        let legendTitle = "Colour: \(colouring.name)"
        doc.text(legendTitle, x: 20, y: y, size: 12, fill: "#555555")
        let legendLeft = 20 + SVGText.width(legendTitle, size: 12) + 14
        var x = legendLeft
        for (category, colour) in categories.sorted(by: { $0.key < $1.key }) {
            let count = marks.filter { colouring.key($0) == category }.count
            let label = "\(SVGText.shorten(category, max: 20)) (\(count))"
            let w = 18 + SVGText.width(label, size: 12) + 14
            if x + w > width - 20 { x = legendLeft; y += 20 }
            doc.add("<g><title>\(SVGText.escape("\(category): \(count) group\(count == 1 ? "" : "s")"))</title>"
                    + "<circle cx=\"\(SVGText.number(x + 6))\" cy=\"\(SVGText.number(y - 4))\" r=\"6\" fill=\"\(colour)\" fill-opacity=\"0.55\" "
                    + "stroke=\"\(colour)\"/>")
            doc.text(label, x: x + 16, y: y, size: 12)
            doc.add("</g>")
            x += w
        }
        for (n, i) in keyed.enumerated() {
            y += 18
            doc.add("<g>\(SVGDocument.title(marks[i].detail))")
            doc.text("\(n + 1). \(marks[i].label)", x: 20, y: y, size: 12)
            doc.add("</g>")
        }
        doc.height = y + 16
        let drawn = marks.indices.map { i in
            Drawn(id: marks[i].id, cx: circles[i].x, cy: circles[i].y, r: circles[i].r, labelBeside: placed[i] != nil)
        }
        return (doc.render(title: title, description: subtitle), drawn)
    }
}
