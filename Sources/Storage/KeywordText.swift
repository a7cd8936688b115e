public import KindredCore
import Synchronization

/// What the keyword index reads in place of a record's text, and the index form of a query term
/// (migration 21). English text, and text whose language is not known, is read as written: FTS5's
/// Porter stemmer serves it. A text of a stemmed language (`TextLanguage.isStemmed`) is read as its
/// words' Snowball stems; a run of a script without spaces (`BigramScript`) as its characters and
/// pairs of characters. The FTS5 tokenizer (`KeywordTokenizer.spec`) then reads the result as before.
public enum KeywordText {
    /// The text the index reads for `text` written in `language`; `text` itself when nothing changes
    /// (the index then holds exactly what it held before migration 21).
    public static func document(_ text: String, language: TextLanguage?) -> String {
        let stemmer = language.flatMap { $0.isStemmed ? Snowball.stemmer(for: $0) : nil }
        guard stemmer != nil || BigramScript.occurs(in: text) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 16)
        var run: [Unicode.Scalar] = []  // letters of a script without spaces
        var word = String.UnicodeScalarView()  // a word to stem
        func endRun() {
            guard !run.isEmpty else { return }
            out += " " + BigramScript.tokens(run).joined(separator: " ") + " "
            run.removeAll(keepingCapacity: true)
        }
        func endWord() {
            guard !word.isEmpty, let stemmer else { return }
            out += stemmer.stem(String(word).lowercased())
            word.removeAll()
        }
        for s in text.unicodeScalars {
            if BigramScript.of(s) != nil {
                endWord()
                run.append(s)
                continue
            }
            endRun()
            if stemmer == nil {
                out.unicodeScalars.append(s)
            } else if isWordScalar(s) {
                word.append(s)
            } else {
                endWord()
                out.unicodeScalars.append(s.properties.isWhitespace ? " " : s)
            }
        }
        endRun()
        endWord()
        return out
    }

    /// The form of one query term (`KeywordTerms`) the index holds: its Snowball stem in a stemmed
    /// language, else the term (a pair of characters, or a word Porter stems).
    public static func queryTerm(_ term: String, language: TextLanguage?) -> String {
        guard let language, language.isStemmed, let first = term.unicodeScalars.first, BigramScript.of(first) == nil,
              let stemmer = Snowball.stemmer(for: language) else { return term }
        return stemmer.stem(term)
    }

    /// Letters, digits and combining marks: what a word to stem is made of (as FTS5's unicode61
    /// reads a token).
    @inline(__always) static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 {
            let v = s.value | 0x20
            return (v >= 0x61 && v <= 0x7A) || (s.value >= 0x30 && s.value <= 0x39)
        }
        let p = s.properties
        return p.isAlphabetic || p.numericType != nil || p.generalCategory == .nonspacingMark || p.generalCategory == .spacingMark
    }
}
