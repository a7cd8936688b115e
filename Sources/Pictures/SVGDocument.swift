/// A plain SVG document built line by line: no scripts, no styles that load anything, no links,
/// a generic font family. Every string that reaches it goes through `SVGText.escape`.
struct SVGDocument {
    let width: Double
    var height: Double
    private var lines: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    mutating func add(_ line: String) { lines.append(line) }

    /// `<text>` with escaped content; `attributes` are written as given (numbers and fixed words).
    mutating func text(_ s: String, x: Double, y: Double, size: Double, anchor: String = "start",
                       weight: String? = nil, fill: String = "#222222", cssClass: String? = nil) {
        var a = "x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(y))\" font-size=\"\(SVGText.number(size))\""
        if anchor != "start" { a += " text-anchor=\"\(anchor)\"" }
        if let weight { a += " font-weight=\"\(weight)\"" }
        if fill != "#222222" { a += " fill=\"\(fill)\"" }
        if let cssClass { a += " class=\"\(cssClass)\"" }
        lines.append("<text \(a)>\(SVGText.escape(s))</text>")
    }

    /// `s` wrapped at word boundaries into lines of at most `width` px, first baseline at `y`;
    /// returns the baseline after the last line.
    mutating func paragraph(_ s: String, x: Double, y: Double, size: Double, width: Double, fill: String = "#222222") -> Double {
        var line = ""
        var baseline = y
        for word in s.split(separator: " ") {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if !line.isEmpty && SVGText.width(candidate, size: size) > width {
                text(line, x: x, y: baseline, size: size, fill: fill)
                baseline += size * 1.35
                line = String(word)
            } else {
                line = candidate
            }
        }
        if !line.isEmpty {
            text(line, x: x, y: baseline, size: size, fill: fill)
            baseline += size * 1.35
        }
        return baseline
    }

    static func title(_ s: String) -> String { "<title>\(SVGText.escape(s))</title>" }

    func render(title: String, description: String) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(SVGText.number(width))\" height=\"\(SVGText.number(height))\" "
        out += "viewBox=\"0 0 \(SVGText.number(width)) \(SVGText.number(height))\" font-family=\"sans-serif\" role=\"img\">\n"
        out += "<title>\(SVGText.escape(title))</title>\n<desc>\(SVGText.escape(description))</desc>\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(SVGText.number(width))\" height=\"\(SVGText.number(height))\" fill=\"#ffffff\"/>\n"
        for line in lines { out += line + "\n" }
        out += "</svg>\n"
        return out
    }
}
