/// A search text bounded in length: at most `maxScalars` Unicode scalars, cut between words.
public enum QueryText {
    /// The text cut to at most `maxScalars` scalars, at the last word boundary before the limit
    /// (mid-word only when the first word is itself longer), or nil when it is within the limit.
    /// Reads no more than `maxScalars + 1` scalars of `text`.
    public static func cut(_ text: String, maxScalars: Int) -> String? {
        var head: [Unicode.Scalar] = []
        head.reserveCapacity(maxScalars + 1)
        for s in text.unicodeScalars {
            head.append(s)
            if head.count > maxScalars { break }
        }
        guard head.count > maxScalars else { return nil }
        var end = maxScalars
        if isWord(head[end]) {
            var k = end
            while k > 0, isWord(head[k - 1]) { k -= 1 }
            if k > 0 { end = k }
        }
        while end > 0, head[end - 1].properties.isWhitespace { end -= 1 }
        var v = String.UnicodeScalarView()
        v.append(contentsOf: head[..<end])
        return String(v)
    }

    static func isWord(_ s: Unicode.Scalar) -> Bool {
        s.properties.isAlphabetic || s.properties.numericType != nil || s.properties.generalCategory == .nonspacingMark
    }
}
