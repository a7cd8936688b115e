/// Which of a query's informative terms a text contains, matched the way passages are placed: a
/// word of the text matches a term when it starts with `KeywordTerms.prefix(of:)` of the term,
/// compared without case ("flying" and "flew"… "flying" matches "fly"; "cranes" matches "crane").
public enum TermCoverage {
    /// The share (0…1) of `terms` that `text` contains; 0 when there are no terms. One pass over the
    /// text's words.
    public static func share(of terms: [String], in text: String) -> Double {
        guard !terms.isEmpty else { return 0 }
        return Double(matched(terms, in: text).count) / Double(terms.count)
    }

    /// The indexes of `terms` that `text` contains.
    public static func matched(_ terms: [String], in text: String) -> Set<Int> {
        let prefixes = terms.map { KeywordTerms.prefix(of: $0).lowercased() }
        var found = Set<Int>()
        guard !prefixes.isEmpty else { return found }
        var word = ""
        func check() {
            guard !word.isEmpty else { return }
            let w = word.lowercased()
            for (i, p) in prefixes.enumerated() where !found.contains(i) && !p.isEmpty && w.hasPrefix(p) { found.insert(i) }
            word = ""
        }
        for ch in text.unicodeScalars {
            if ch.properties.isAlphabetic || ch.properties.numericType != nil { word.unicodeScalars.append(ch) } else {
                check()
                if found.count == prefixes.count { return found }
            }
        }
        check()
        return found
    }
}
