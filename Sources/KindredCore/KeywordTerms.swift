/// The informative words of a search query: maximal runs of letters and digits, lowercased, each
/// once, in query order, without stopwords, at most `maxTerms` of them (the rest are dropped and
/// counted). Keyword search needs at least one of them in a record; a query of stopwords only has none.
public struct KeywordTerms: Sendable, Equatable {
    public private(set) var terms: [String] = []
    /// Informative terms beyond `maxTerms`, left out.
    public private(set) var dropped = 0

    public init(query: String, maxTerms: Int = .max) {
        var seen = Set<String>()
        for word in Self.words(query) where !Stopwords.contains(word) && seen.insert(word).inserted {
            if terms.count < maxTerms { terms.append(word) } else { dropped += 1 }
        }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// Maximal runs of letters and digits, lowercased.
    public static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        for ch in text {
            if ch.isLetter || ch.isNumber { current.append(ch) } else if !current.isEmpty { out.append(current.lowercased()); current = "" }
        }
        if !current.isEmpty { out.append(current.lowercased()) }
        return out
    }

    /// What a word of the text must start with to match `term`: the term without one common English
    /// suffix (and a doubled last consonant), kept at three scalars or more — so "flying" and "fly"
    /// both match "flying", and "cranes" matches "crane". Used to place passages, not to rank.
    public static func prefix(of term: String) -> String {
        var s = Array(term.unicodeScalars)
        for suffix in ["ing", "ed", "es", "s", "ly", "e"] {
            let suf = Array(suffix.unicodeScalars)
            if s.count - suf.count >= 3, Array(s.suffix(suf.count)) == suf {
                s.removeLast(suf.count)
                break
            }
        }
        if s.count >= 4, let last = s.last, s[s.count - 2] == last, last.isASCII,
           !"aeiouls".unicodeScalars.contains(last), last.properties.isAlphabetic {
            s.removeLast()
        }
        var v = String.UnicodeScalarView()
        v.append(contentsOf: s)
        return String(v)
    }
}
