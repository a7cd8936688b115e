/// A span of a record's text. Offsets count Unicode scalars (code points) from the start of the text.
public struct Passage: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var text: String
    public init(start: Int, end: Int, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// Sentence-aware splitting of text into passages of at most `maxScalars` scalars.
public enum Passages {
    /// Splits at sentence ends (. ! ? … and newlines) and packs whole sentences into passages.
    /// A sentence longer than the limit is cut at a space near the limit.
    public static func split(_ text: String, maxScalars: Int = 1000) -> [Passage] {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return [Passage(start: 0, end: 0, text: "")] }
        var sentences: [Range<Int>] = []
        var s = 0
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            let isEnd = c == "." || c == "!" || c == "?" || c == "…" || c == "\n" || c == "。"
            if isEnd {
                var e = i + 1
                while e < scalars.count, scalars[e] == "." || scalars[e] == "!" || scalars[e] == "?" || scalars[e] == "\"" || scalars[e] == "”" || scalars[e] == ")" { e += 1 }
                sentences.append(s..<e)
                while e < scalars.count, scalars[e].properties.isWhitespace { e += 1 }
                s = e
                i = e
            } else {
                i += 1
            }
        }
        if s < scalars.count { sentences.append(s..<scalars.count) }

        var out: [Passage] = []
        var cur: Range<Int>?
        func flush() {
            guard let r = cur else { return }
            out.append(make(scalars, r))
            cur = nil
        }
        for var r in sentences {
            while r.count > maxScalars {
                flush()
                var cut = r.lowerBound + maxScalars
                var k = cut
                while k > r.lowerBound + maxScalars / 2, scalars[k] != " " { k -= 1 }
                if scalars[k] == " " { cut = k + 1 }
                out.append(make(scalars, r.lowerBound..<cut))
                r = cut..<r.upperBound
            }
            if let c = cur, r.upperBound - c.lowerBound <= maxScalars {
                cur = c.lowerBound..<r.upperBound
            } else {
                flush()
                cur = r
            }
        }
        flush()
        let trimmed = out.compactMap(trim)
        return trimmed.isEmpty ? [Passage(start: 0, end: scalars.count, text: text)] : trimmed
    }

    static func make(_ scalars: [Unicode.Scalar], _ r: Range<Int>) -> Passage {
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[r])
        return Passage(start: r.lowerBound, end: r.upperBound, text: String(s))
    }

    /// Drops leading/trailing whitespace, keeping offsets exact; nil when nothing is left.
    static func trim(_ p: Passage) -> Passage? {
        let sc = Array(p.text.unicodeScalars)
        var a = 0, b = sc.count
        while a < b, sc[a].properties.isWhitespace { a += 1 }
        while b > a, sc[b - 1].properties.isWhitespace { b -= 1 }
        guard a < b else { return nil }
        return make(sc, a..<b).shifted(by: p.start)
    }

    /// The passage containing the first occurrence (case-insensitive) of any of `words`, or the first.
    public static func best(in text: String, matching words: [String], maxScalars: Int = 1000) -> Passage {
        let passages = split(text, maxScalars: maxScalars)
        let lowered = words.map { $0.lowercased() }.filter { !$0.isEmpty }
        for p in passages {
            let t = p.text.lowercased()
            if lowered.contains(where: { t.contains($0) }) { return p }
        }
        return passages[0]
    }
}

extension Passage {
    func shifted(by n: Int) -> Passage { Passage(start: start + n, end: end + n, text: text) }
}
