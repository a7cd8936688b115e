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
        let sentences = self.sentences(scalars)

        // Passages are made from their ranges with surrounding whitespace dropped; one with nothing
        // else is left out.
        var out: [Passage] = []
        func add(_ r: Range<Int>) {
            if let t = trimmed(scalars, r) { out.append(make(scalars, t)) }
        }
        var cur: Range<Int>?
        func flush() {
            guard let r = cur else { return }
            add(r)
            cur = nil
        }
        for var r in sentences {
            while r.count > maxScalars {
                flush()
                var cut = r.lowerBound + maxScalars
                var k = cut
                while k > r.lowerBound + maxScalars / 2, scalars[k] != " " { k -= 1 }
                if scalars[k] == " " { cut = k + 1 }
                add(r.lowerBound..<cut)
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
        return out.isEmpty ? [Passage(start: 0, end: scalars.count, text: text)] : out
    }

    /// Sentence ranges of `scalars`: a sentence ends at . ! ? … 。 ！ ？ or a newline, with any
    /// . ! ? 。 ！ ？ and closing " ” ) 」 』 ） after it; whitespace after a sentence belongs to no
    /// sentence.
    static func sentences(_ scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var sentences: [Range<Int>] = []
        var s = 0
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if isSentenceEnd(c) {
                var e = i + 1
                while e < scalars.count, closers.contains(scalars[e]) { e += 1 }
                sentences.append(s..<e)
                while e < scalars.count, scalars[e].properties.isWhitespace { e += 1 }
                s = e
                i = e
            } else {
                i += 1
            }
        }
        if s < scalars.count { sentences.append(s..<scalars.count) }
        return sentences
    }

    static func make(_ scalars: [Unicode.Scalar], _ r: Range<Int>) -> Passage {
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[r])
        return Passage(start: r.lowerBound, end: r.upperBound, text: String(s))
    }

    /// `r` without leading and trailing whitespace; nil when nothing is left.
    static func trimmed(_ scalars: [Unicode.Scalar], _ r: Range<Int>) -> Range<Int>? {
        var a = r.lowerBound, b = r.upperBound
        while a < b, scalars[a].properties.isWhitespace { a += 1 }
        while b > a, scalars[b - 1].properties.isWhitespace { b -= 1 }
        return a < b ? a..<b : nil
    }

    /// The passage around the first word of `text` that matches one of `terms` (lowercased query
    /// terms; a word matches when it starts with `KeywordTerms.prefix(of:)` of a term, ASCII letters
    /// compared without case; in a script without spaces a match may start at any letter), or the
    /// first passage. One pass over the text's UTF-8 finds the word;
    /// a long text is then split only in a window of about `2 × maxScalars` around it, so the cost
    /// is linear in the text, not in the text times its passages.
    public static func best(in text: String, matching terms: [String], maxScalars: Int = 1000) -> Passage {
        best(in: text, prefixes: prefixes(of: terms), maxScalars: maxScalars)
    }

    /// What a word must start with to match each of `terms`, as UTF-8 (empty prefixes left out), for
    /// `best(in:prefixes:maxScalars:)`: computed once for all the hits of a query.
    public static func prefixes(of terms: [String]) -> [[UInt8]] {
        terms.map { Array(KeywordTerms.prefix(of: $0.lowercased()).utf8) }.filter { !$0.isEmpty }
    }

    /// `best(in:matching:maxScalars:)` with the terms' `prefixes(of:)`.
    public static func best(in text: String, prefixes: [[UInt8]], maxScalars: Int = 1000) -> Passage {
        let maxScalars = max(1, maxScalars)
        let found: WordMatch? = prefixes.isEmpty ? nil : text.utf8.withContiguousStorageIfAvailable { firstWord(in: $0, prefixes: prefixes) }
            ?? Array(text.utf8).withUnsafeBufferPointer { firstWord(in: $0, prefixes: prefixes) }
        if text.utf8.count <= 8 * maxScalars {
            let passages = split(text, maxScalars: maxScalars)
            guard let found else { return passages[0] }
            return passages.first { $0.end > found.scalar } ?? passages[passages.count - 1]
        }
        return window(text, around: found ?? WordMatch(byte: 0, scalar: 0), maxScalars: maxScalars)
    }

    struct WordMatch { var byte: Int; var scalar: Int }

    /// The first word start (in bytes and scalars) whose bytes begin with one of `prefixes`.
    static func firstWord(in bytes: UnsafeBufferPointer<UInt8>, prefixes: [[UInt8]]) -> WordMatch? {
        var firstByte = [Bool](repeating: false, count: 256)
        for p in prefixes { firstByte[Int(p[0])] = true }
        var scalar = 0
        var previousIsWord = false
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            let isWord: Bool
            var startsInside = false  // a letter of a script without spaces: any one may start a match
            var width = 1
            if b < 0x80 {
                isWord = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
            } else {
                width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
                width = min(width, n - i)
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[i..<(i + width)]), as: UTF8.self).unicodeScalars.first
                let props = s?.properties
                isWord = props.map { $0.isAlphabetic || $0.numericType != nil || $0.generalCategory == .nonspacingMark } ?? false
                startsInside = s.map { BigramScript.of($0) != nil } ?? false
            }
            if isWord, !previousIsWord || startsInside, firstByte[Int(lower(b))] {
                for p in prefixes where p.count <= n - i {
                    var k = 0
                    while k < p.count, lower(bytes[i + k]) == p[k] { k += 1 }
                    if k == p.count { return WordMatch(byte: i, scalar: scalar) }
                }
            }
            previousIsWord = isWord
            scalar += 1
            i += width
        }
        return nil
    }

    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b + 32 : b }

    /// The passage containing the word at `match`, split from the start of its sentence (found at most
    /// `maxScalars` back) over a window of `2 × maxScalars + 1` scalars.
    static func window(_ text: String, around match: WordMatch, maxScalars: Int) -> Passage {
        var back = text.utf8.index(text.utf8.startIndex, offsetBy: match.byte)
        var count = 0
        while back > text.utf8.startIndex, count < maxScalars {
            text.utf8.formIndex(before: &back)
            if text.utf8[back] & 0xC0 != 0x80 { count += 1 }
        }
        let windowStart = match.scalar - count
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(2 * maxScalars + 1)
        for s in text.unicodeScalars[back...] {
            scalars.append(s)
            if scalars.count > 2 * maxScalars { break }
        }
        var start = 0
        if let end = scalars[..<count].lastIndex(where: isSentenceEnd) {
            start = end + 1
        } else if windowStart > 0, let space = scalars[..<count].firstIndex(where: { $0.properties.isWhitespace }) {
            start = space + 1  // inside a sentence longer than the window: start at a word
        }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start...])
        let passages = split(String(view), maxScalars: maxScalars).map { $0.shifted(by: windowStart + start) }
        return passages.first { $0.end > match.scalar } ?? passages[passages.count - 1]
    }

    static func isSentenceEnd(_ c: Unicode.Scalar) -> Bool {
        c == "." || c == "!" || c == "?" || c == "…" || c == "\n" || c == "。" || c == "！" || c == "？"
    }

    /// What may follow a sentence's end mark inside the sentence.
    static let closers: Set<Unicode.Scalar> = [".", "!", "?", "。", "！", "？", "\"", "”", ")", "」", "』", "）"]
}

extension Passage {
    func shifted(by n: Int) -> Passage { Passage(start: start + n, end: end + n, text: text) }
}
