/// Finds an excerpt in a record text after folding whitespace runs, curly quotes and case, and
/// returns the exact span of the original text (offsets in Unicode scalars). Never repairs.
enum ExcerptMatcher {
    struct Match: Equatable {
        var start: Int
        var end: Int
        var text: String
    }

    /// Folded scalars, each with the range of original scalars it came from.
    struct Folded {
        var scalars: [Unicode.Scalar] = []
        var origin: [Range<Int>] = []
    }

    static func fold(_ scalars: [Unicode.Scalar]) -> Folded {
        var out = Folded()
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c.properties.isWhitespace {
                var j = i + 1
                while j < scalars.count, scalars[j].properties.isWhitespace { j += 1 }
                out.scalars.append(" ")
                out.origin.append(i..<j)
                i = j
                continue
            }
            let mapped: String
            switch c {
            case "\u{2018}", "\u{2019}": mapped = "'"
            case "\u{201C}", "\u{201D}": mapped = "\""
            default: mapped = c.properties.lowercaseMapping
            }
            for m in mapped.unicodeScalars {
                out.scalars.append(m)
                out.origin.append(i..<(i + 1))
            }
            i += 1
        }
        return out
    }

    /// The first match of `excerpt` in `text`, or nil. Leading and trailing whitespace of the
    /// excerpt is ignored; an excerpt that is only whitespace never matches.
    static func find(_ excerpt: String, in text: String) -> Match? {
        var needle = fold(Array(excerpt.unicodeScalars)).scalars
        while needle.first == " " { needle.removeFirst() }
        while needle.last == " " { needle.removeLast() }
        guard !needle.isEmpty else { return nil }
        let original = Array(text.unicodeScalars)
        let hay = fold(original)
        guard hay.scalars.count >= needle.count else { return nil }
        outer: for s in 0...(hay.scalars.count - needle.count) {
            for k in 0..<needle.count where hay.scalars[s + k] != needle[k] { continue outer }
            let start = hay.origin[s].lowerBound, end = hay.origin[s + needle.count - 1].upperBound
            // A lowercase mapping of several scalars must be matched whole.
            if s > 0, hay.origin[s - 1] == hay.origin[s] { continue }
            if s + needle.count < hay.origin.count, hay.origin[s + needle.count] == hay.origin[s + needle.count - 1] { continue }
            var view = String.UnicodeScalarView()
            view.append(contentsOf: original[start..<end])
            return Match(start: start, end: end, text: String(view))
        }
        return nil
    }
}
