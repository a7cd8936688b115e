/// The sentence of a passage that best matches a query, for a result list: the sentence holding the
/// most of the query's informative terms (the earliest on a tie, the first sentence when none holds
/// any), cut at a word boundary to at most `maxScalars` scalars. Offsets count Unicode scalars in
/// the record's text, like the passage's.
public enum Highlight {
    public static func best(in passage: Passage, terms: [String], maxScalars: Int = 240) -> Passage {
        best(in: passage, prefixes: TermCoverage.prefixes(of: terms), maxScalars: maxScalars)
    }

    /// `best(in:terms:maxScalars:)` with the terms' `TermCoverage.prefixes(of:)` (one per term),
    /// computed once for all the hits of a query.
    public static func best(in passage: Passage, prefixes: [String], maxScalars: Int = 240) -> Passage {
        let scalars = Array(passage.text.unicodeScalars)
        let sentences = self.sentences(scalars)
        guard !sentences.isEmpty else { return passage }
        var best = sentences[0], bestCount = 0
        if !prefixes.isEmpty {
            for r in sentences {
                let count = TermCoverage.matched(prefixes: prefixes, in: scalars[r]).count
                if count > bestCount { best = r; bestCount = count }
                if bestCount == prefixes.count { break }
            }
        }
        let cut = self.cut(scalars, best, maxScalars: max(1, maxScalars))
        return Passage(start: passage.start + cut.lowerBound, end: passage.start + cut.upperBound, text: text(scalars, cut))
    }

    /// The passage's sentences (`Passages.sentences`) without surrounding whitespace.
    static func sentences(_ s: [Unicode.Scalar]) -> [Range<Int>] {
        Passages.sentences(s).compactMap { r in
            var a = r.lowerBound, b = r.upperBound
            while a < b, s[a].properties.isWhitespace { a += 1 }
            while b > a, s[b - 1].properties.isWhitespace { b -= 1 }
            return a < b ? a..<b : nil
        }
    }

    /// `r` cut to `maxScalars`, at the last space in its second half when there is one.
    static func cut(_ s: [Unicode.Scalar], _ r: Range<Int>, maxScalars: Int) -> Range<Int> {
        guard r.count > maxScalars else { return r }
        var end = r.lowerBound + maxScalars
        var k = end
        while k > r.lowerBound + maxScalars / 2, !s[k].properties.isWhitespace { k -= 1 }
        if s[k].properties.isWhitespace { end = k }
        while end > r.lowerBound + 1, s[end - 1].properties.isWhitespace { end -= 1 }
        return r.lowerBound..<end
    }

    static func text(_ s: [Unicode.Scalar], _ r: Range<Int>) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: s[r])
        return String(v)
    }
}
