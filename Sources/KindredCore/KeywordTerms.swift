/// The informative words of a search query: maximal runs of letters and digits, lowercased, each
/// once, in query order, without the stopwords of the query's `language` (English's when it has
/// none), at most `maxTerms` of them (the rest are dropped and counted). A run of a script written
/// without spaces (`BigramScript`) gives its pairs of characters instead (or its one character).
/// Keyword search needs at least one of them in a record; a query of stopwords only has none.
public struct KeywordTerms: Sendable, Equatable {
    public private(set) var terms: [String] = []
    /// Informative terms beyond `maxTerms`, left out.
    public private(set) var dropped = 0
    /// The language the stopwords were taken from (nil: English's list, the query's language unknown).
    public let language: TextLanguage?

    public init(query: String, maxTerms: Int = .max, language: TextLanguage? = nil) {
        self.language = language
        let stopwords = language.flatMap { Stopwords.list(for: $0) } ?? Stopwords.english
        var seen = Set<String>()
        func add(_ term: String) {
            guard seen.insert(term).inserted else { return }
            if terms.count < maxTerms { terms.append(term) } else { dropped += 1 }
        }
        for word in Self.words(query) {
            let scalars = Array(word.unicodeScalars)
            if BigramScript.of(scalars[0]) != nil {
                for t in BigramScript.queryTerms(scalars) { add(t) }
            } else if !stopwords.contains(word) {
                add(word)
            }
        }
    }

    public var isEmpty: Bool { terms.isEmpty }

    /// Maximal runs of letters and digits, lowercased; a run of a script written without spaces
    /// (`BigramScript`) is a word of its own, apart from letters of other scripts beside it.
    public static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var currentIsBigram = false
        for ch in text {
            if ch.isLetter || ch.isNumber {
                let bigram = ch.unicodeScalars.first.map { BigramScript.of($0) != nil } ?? false
                if !current.isEmpty, bigram != currentIsBigram { out.append(current.lowercased()); current = "" }
                currentIsBigram = bigram
                current.append(ch)
            } else if !current.isEmpty {
                out.append(current.lowercased())
                current = ""
            }
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
