/// The findings timeline: one small panel per finding, records per month as bars on one scale with
/// the month's fraction above each bar ("3 of 25", the denominator being the month's eligible
/// records; in the hover text when bars are narrow), the finding's "4 of 12" beside its label,
/// and, when a period comparison was asked for, two bars with both fractions labelled.
public enum Timeline {
    public struct Month: Sendable, Equatable {
        /// `YYYY-MM`.
        public var month: String
        public var records: Int
        public var eligible: Int
        public init(month: String, records: Int, eligible: Int) {
            self.month = month
            self.records = records
            self.eligible = eligible
        }
    }

    public struct Share: Sendable, Equatable {
        public var name: String
        public var records: Int
        public var eligible: Int
        public init(name: String, records: Int, eligible: Int) {
            self.name = name
            self.records = records
            self.eligible = eligible
        }
    }

    public struct Comparison: Sendable, Equatable {
        public var current: Share
        public var previous: Share
        /// The plain-words trend, or why there is none ("too few records to compare").
        public var note: String
        public init(current: Share, previous: Share, note: String) {
            self.current = current
            self.previous = previous
            self.note = note
        }
    }

    public struct Series: Sendable, Equatable {
        public var id: Int64
        public var label: String
        public var detail: String
        public var category: String
        public var records: Int
        public var eligible: Int
        /// Every month of the picture, in order (the same months for every series).
        public var months: [Month]
        public var comparison: Comparison?

        public init(id: Int64, label: String, detail: String, category: String, records: Int, eligible: Int,
                    months: [Month], comparison: Comparison?) {
            self.id = id
            self.label = label
            self.detail = detail
            self.category = category
            self.records = records
            self.eligible = eligible
            self.months = months
            self.comparison = comparison
        }
    }

    public static let width = 800.0
    static let panelHeight = 96.0

    public static func render(_ series: [Series], title: String, subtitle: String) -> String {
        var doc = SVGDocument(width: width, height: 0)
        doc.text(title, x: 20, y: 28, size: 18, weight: "bold")
        let top = doc.paragraph(subtitle, x: 20, y: 48, size: 12, width: width - 40, fill: "#555555")
        let colours = Palette.assign(series.map(\.category))
        let compare = series.contains { $0.comparison != nil }
        let chartX = 20.0, chartW = compare ? 500.0 : width - 40
        // Bars share one scale (the busiest month of any pattern), so panels compare at a glance.
        let highest = max(1, series.flatMap(\.months).map(\.records).max() ?? 1)
        var y = top
        if series.isEmpty {
            doc.text("No recurring findings yet: add records, then refresh the patterns.", x: 20, y: y + 20, size: 14, fill: "#555555")
            y += 40
        }
        for s in series {
            let colour = colours[s.category] ?? "#888888"
            let summary = "\(s.records) of \(s.eligible) eligible records"
            let room = chartW - SVGText.width(summary, size: 12) - 16
            doc.add("<g>\(SVGDocument.title(s.detail))")
            doc.text(fitted(s.label, width: room, size: 13), x: chartX, y: y + 14, size: 13, weight: "bold")
            doc.add("</g>")
            doc.text(summary, x: chartX + chartW, y: y + 14, size: 12, anchor: "end", fill: "#333333")
            let base = y + panelHeight - 22, barTop = y + 36
            let barMax = base - barTop
            let n = max(1, s.months.count)
            let step = chartW / Double(n)
            let barW = max(1, step * 0.72)
            // The month's fraction above its bar when there is room: "3 of 25", else "3/25".
            let long = step >= 46, short = step >= 26
            doc.add("<rect x=\"\(SVGText.number(chartX))\" y=\"\(SVGText.number(barTop))\" width=\"\(SVGText.number(chartW))\" "
                    + "height=\"\(SVGText.number(barMax))\" fill=\"#f4f4f4\"/>")
            for (k, m) in s.months.enumerated() {
                let x = chartX + Double(k) * step + (step - barW) / 2
                let h = barMax * Double(m.records) / Double(highest)
                let hover = "\(m.month): \(m.records) of \(m.eligible) eligible record\(m.eligible == 1 ? "" : "s")"
                doc.add("<g>\(SVGDocument.title(hover))"
                        + "<rect x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(barTop))\" width=\"\(SVGText.number(barW))\" "
                        + "height=\"\(SVGText.number(barMax))\" fill=\"#f4f4f4\" fill-opacity=\"0\"/>"
                        + (m.records > 0 ? "<rect x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(base - h))\" width=\"\(SVGText.number(barW))\" "
                           + "height=\"\(SVGText.number(h))\" fill=\"\(colour)\"/>" : "")
                        + "</g>")
                if short && m.eligible > 0 {
                    let label = long ? "\(m.records) of \(m.eligible)" : "\(m.records)/\(m.eligible)"
                    doc.text(label, x: x + barW / 2, y: base - h - 3, size: 9, anchor: "middle", fill: m.records > 0 ? "#333333" : "#999999")
                }
            }
            doc.add("<line x1=\"\(SVGText.number(chartX))\" y1=\"\(SVGText.number(base))\" x2=\"\(SVGText.number(chartX + chartW))\" "
                    + "y2=\"\(SVGText.number(base))\" stroke=\"#bbbbbb\"/>")
            // Every third month (bin) is named under its bar, or every sixth, ninth… when bars are
            // too narrow for that; the last one too when it is far enough from the last named.
            let every = 3 * max(1, Int((56 / (3 * step)).rounded(.up)))
            var lastNamed = -Double.infinity
            for (k, m) in s.months.enumerated() where k % every == 0 {
                let x = k == 0 ? chartX : chartX + Double(k) * step + step / 2
                doc.text(m.month, x: x, y: base + 14, size: 10, anchor: k == 0 ? "start" : "middle", fill: "#666666")
                lastNamed = k == 0 ? x + 20 : x
            }
            if s.months.count > 1, (s.months.count - 1) % every != 0, let last = s.months.last, chartX + chartW - 20 - lastNamed >= 56 {
                doc.text(last.month, x: chartX + chartW, y: base + 14, size: 10, anchor: "end", fill: "#666666")
            }
            if let c = s.comparison { drawComparison(&doc, c, colour: colour, x: chartX + chartW + 24, y: y + 22) }
            y += panelHeight + 8
        }
        let end = doc.paragraph("Bars: records of the pattern per month, on one scale for all panels; above each bar, when there is room, "
                                + "those records of all the eligible records of that month.",
                                x: 20, y: y + 4, size: 11, width: width - 40, fill: "#555555")
        doc.height = end + 4
        return doc.render(title: title, description: subtitle)
    }

    static func drawComparison(_ doc: inout SVGDocument, _ c: Comparison, colour: String, x: Double, y: Double) {
        let w = width - 20 - x
        let barW = w - 70
        for (k, share) in [c.current, c.previous].enumerated() {
            let top = y + Double(k) * 26
            let fraction = share.eligible > 0 ? Double(share.records) / Double(share.eligible) : 0
            let text = "\(share.name): \(share.records) of \(share.eligible) (\(Int((fraction * 100).rounded()))%)"
            doc.add("<g>\(SVGDocument.title(text))"
                    + "<rect x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(top + 6))\" width=\"\(SVGText.number(barW))\" height=\"8\" fill=\"#e3e3e3\"/>"
                    + "<rect x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(top + 6))\" width=\"\(SVGText.number(barW * fraction))\" height=\"8\" "
                    + "fill=\"\(colour)\" fill-opacity=\"\(k == 0 ? "1" : "0.5")\"/></g>")
            doc.text(fitted(text, width: w, size: 11), x: x, y: top + 2, size: 11, fill: "#333333")
        }
        doc.text(fitted(c.note, width: w, size: 11), x: x, y: y + 60, size: 11, fill: "#555555")
    }

    /// `s` shortened until it fits `width` px.
    static func fitted(_ s: String, width: Double, size: Double) -> String {
        var n = s.count
        var out = s
        while n > 4 && SVGText.width(out, size: size) > width {
            n -= 2
            out = SVGText.shorten(s, max: n)
        }
        return out
    }
}
