/// Which of a query's informative terms a text contains, matched the way passages are placed: a
/// word of the text matches a term when it starts with `KeywordTerms.prefix(of:)` of the term,
/// compared without case ("flying" and "flew"… "flying" matches "fly"; "cranes" matches "crane");
/// a term of a script without spaces (`BigramScript`) matches anywhere inside a word.
public enum TermCoverage {
    /// The share (0…1) of `terms` that `text` contains; 0 when there are no terms. One pass over the
    /// text's words.
    public static func share(of terms: [String], in text: String) -> Double {
        guard !terms.isEmpty else { return 0 }
        return Double(matched(terms, in: text).count) / Double(terms.count)
    }

    /// The indexes of `terms` that `text` contains.
    public static func matched(_ terms: [String], in text: String) -> Set<Int> {
        matched(prefixes: prefixes(of: terms), in: text.unicodeScalars)
    }

    /// What a word must start with to match each term (lowercased), for `matched(prefixes:in:)`.
    public static func prefixes(of terms: [String]) -> [String] {
        terms.map { KeywordTerms.prefix(of: $0).lowercased() }
    }

    /// The indexes of the terms whose `prefixes` start a word of `scalars`.
    public static func matched<S: Sequence<Unicode.Scalar>>(prefixes: [String], in scalars: S) -> Set<Int> {
        var found = Set<Int>()
        guard !prefixes.isEmpty else { return found }
        // A term of a script without spaces (a pair of characters) may sit anywhere in a word.
        let inside = prefixes.map { $0.unicodeScalars.first.map { BigramScript.of($0) != nil } ?? false }
        var word = ""
        func check() {
            guard !word.isEmpty else { return }
            let w = word.lowercased()
            for (i, p) in prefixes.enumerated() where !found.contains(i) && !p.isEmpty && (inside[i] ? w.contains(p) : w.hasPrefix(p)) {
                found.insert(i)
            }
            word = ""
        }
        for ch in scalars {
            if isWordScalar(ch) { word.unicodeScalars.append(ch) } else {
                check()
                if found.count == prefixes.count { return found }
            }
        }
        check()
        return found
    }

    /// Alphabetic or numeric; ASCII answered without the property tables (only A–Z, a–z and 0–9
    /// are either there).
    @inline(__always) static func isWordScalar(_ c: Unicode.Scalar) -> Bool {
        if c.value < 0x80 {
            let v = c.value | 0x20
            return (v >= 0x61 && v <= 0x7A) || (c.value >= 0x30 && c.value <= 0x39)
        }
        return c.properties.isAlphabetic || c.properties.numericType != nil
    }
}
