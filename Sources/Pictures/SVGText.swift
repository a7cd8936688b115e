/// Text and numbers as they go into an SVG document.
public enum SVGText {
    /// Escapes `s` for XML character data and attribute values (`&`, `<`, `>`, `"`, `'`), and drops
    /// the characters XML 1.0 does not allow (C0 controls other than tab, newline and carriage
    /// return, U+FFFE and U+FFFF), so no record text can end an element or start markup.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out += " "
            default:
                let v = scalar.value
                if v < 0x20 || v == 0xFFFE || v == 0xFFFF || (0x7F...0x9F).contains(v) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `x` with at most one decimal ("12", "12.5", "-3.1"): the same number always prints the same.
    public static func number(_ x: Double) -> String {
        guard x.isFinite else { return "0" }
        let tenths = Int((x * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let a = abs(tenths)
        return a % 10 == 0 ? "\(sign)\(a / 10)" : "\(sign)\(a / 10).\(a % 10)"
    }

    /// A rough width in pixels of `s` set in a sans-serif face at `size` px: wide enough for the
    /// common fonts, so that boxes built from it do not overlap when drawn.
    public static func width(_ s: String, size: Double) -> Double {
        var em = 0.0
        for ch in s {
            switch ch {
            case "i", "l", "j", "t", "f", "r", "I", ".", ",", ":", ";", "'", "!", "|", " ": em += 0.34
            case "m", "w", "M", "W": em += 0.92
            case "A"..."Z": em += 0.70
            default: em += ch.isASCII ? 0.58 : 0.75
            }
        }
        return em * size
    }

    /// `s` cut to at most `max` characters at a word boundary when one is near, with "…".
    public static func shorten(_ s: String, max: Int) -> String {
        let clean = s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard clean.count > max, max > 1 else { return clean }
        let head = String(clean.prefix(max - 1))
        if let space = head.lastIndex(of: " "), head.distance(from: head.startIndex, to: space) >= max / 2 {
            return String(head[..<space]).trimmingTrailingPunctuation + "…"
        }
        return head + "…"
    }
}

extension String {
    var trimmingTrailingPunctuation: String {
        var s = self
        while let last = s.last, last == " " || last == "," || last == ";" || last == ":" || last == "-" { s.removeLast() }
        return s
    }
}
