internal import CStemmer
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

/// One Snowball stemmer per stemmed language, made on first use and kept; calls are serialised per
/// stemmer (libstemmer's are not thread-safe).
final class Snowball: @unchecked Sendable {
    private let stemmer: OpaquePointer
    private let lock = Mutex<Void>(())

    private init?(algorithm: String) {
        guard let s = sb_stemmer_new(algorithm, "UTF_8") else { return nil }
        stemmer = s
    }

    deinit { sb_stemmer_delete(stemmer) }

    /// libstemmer's algorithm names of the stemmed languages.
    static let algorithms: [TextLanguage: String] = [
        .german: "german", .french: "french", .spanish: "spanish", .italian: "italian", .portuguese: "portuguese", .dutch: "dutch",
    ]

    private static let made = Mutex<[TextLanguage: Snowball]>([:])

    /// The stemmer of `language`, or nil when libstemmer has none for it.
    static func stemmer(for language: TextLanguage) -> Snowball? {
        guard let algorithm = algorithms[language] else { return nil }
        return made.withLock { m in
            if let s = m[language] { return s }
            let s = Snowball(algorithm: algorithm)
            m[language] = s
            return s
        }
    }

    /// The stem of a lowercase word (the word itself when the stemmer fails).
    func stem(_ word: String) -> String {
        var w = word
        return lock.withLock { _ in
            w.withUTF8 { bytes -> String in
                guard let base = bytes.baseAddress, bytes.count < 1 << 20 else { return word }
                let capacity = bytes.count + 64
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { out -> String in
                    let n = kindred_stem(stemmer, base, Int32(bytes.count), out.baseAddress, Int32(capacity))
                    guard n >= 0 else { return word }
                    return String(decoding: UnsafeBufferPointer(rebasing: out[..<Int(n)]), as: UTF8.self)
                }
            }
        }
    }
}
