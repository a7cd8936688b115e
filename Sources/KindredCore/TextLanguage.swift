/// The language of a text as keyword search and fusion need it: an ISO 639-1 code. Latin-script
/// languages are told apart by their stopwords (`Stopwords`), scripts without spaces by their
/// letters (`BigramScript`).
public struct TextLanguage: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let english = TextLanguage(rawValue: "en")
    public static let german = TextLanguage(rawValue: "de")
    public static let french = TextLanguage(rawValue: "fr")
    public static let spanish = TextLanguage(rawValue: "es")
    public static let italian = TextLanguage(rawValue: "it")
    public static let portuguese = TextLanguage(rawValue: "pt")
    public static let dutch = TextLanguage(rawValue: "nl")
    public static let japanese = TextLanguage(rawValue: "ja")
    public static let chinese = TextLanguage(rawValue: "zh")
    public static let korean = TextLanguage(rawValue: "ko")
    public static let thai = TextLanguage(rawValue: "th")

    /// The languages told apart by stopwords, English first (it wins a tie).
    public static let byStopwords: [TextLanguage] = [.english, .german, .french, .spanish, .italian, .portuguese, .dutch]

    public var description: String { rawValue }
    public static func < (a: TextLanguage, b: TextLanguage) -> Bool { a.rawValue < b.rawValue }

    /// Whether keyword search reads the language's words through its stemmer (every language told
    /// apart by stopwords but English, which the index's own Porter stemmer serves).
    public var isStemmed: Bool { self != .english && Self.byStopwords.contains(self) }

    /// The language of `text`, or nil when nothing in it says (no letters, or Latin words none of
    /// which is a stopword of a known language).
    ///
    /// A text whose letters are at least 30 % Han, kana, Hangul or Thai is Japanese (any kana),
    /// Chinese (Han without kana), Korean or Thai. Otherwise each word counts for every language
    /// whose stopword list holds it; the language with the most wins: among `candidates` only, the
    /// earlier one on a tie (English first without candidates). Only the first `maxWords` words are read.
    public static func detect(_ text: String, among candidates: [TextLanguage]? = nil, maxWords: Int = 400) -> TextLanguage? {
        var letters = 0, han = 0, kana = 0, hangul = 0, thai = 0
        var hits = [Int](repeating: 0, count: byStopwords.count)
        var words = 0
        var word = ""
        func endWord() {
            guard !word.isEmpty else { return }
            words += 1
            let w = word.lowercased()
            for (i, l) in byStopwords.enumerated() where Stopwords.list(for: l)?.contains(w) == true { hits[i] += 1 }
            word = ""
        }
        for s in text.unicodeScalars {
            if words >= maxWords { break }
            switch BigramScript.of(s) {
            case .han: han += 1; letters += 1; endWord()
            case .kana: kana += 1; letters += 1; endWord()
            case .hangul: hangul += 1; letters += 1; endWord()
            case .thai: thai += 1; letters += 1; endWord()
            case nil:
                if s.properties.isAlphabetic {
                    letters += 1
                    word.unicodeScalars.append(s)
                } else if s.properties.numericType != nil {
                    word.unicodeScalars.append(s)
                } else {
                    endWord()
                }
            }
        }
        endWord()
        let spaceless = han + kana + hangul + thai
        if letters > 0, spaceless * 10 >= letters * 3 {
            let script: TextLanguage
            if kana > 0 { script = .japanese } else if hangul >= han && hangul >= thai { script = .korean }
            else if thai > han { script = .thai } else { script = .chinese }
            if let candidates, !candidates.isEmpty, !candidates.contains(script), script == .chinese, candidates.contains(.japanese) {
                return .japanese  // Japanese written in kanji alone
            }
            return script
        }
        // In the candidates' order (an owner's languages, most records first), else English first:
        // the earlier language wins a tie.
        var best: TextLanguage?
        var bestHits = 0
        for l in candidates ?? byStopwords {
            guard let i = byStopwords.firstIndex(of: l), hits[i] > bestHits else { continue }
            best = l
            bestHits = hits[i]
        }
        return best
    }
}

/// Scripts written without spaces between words. Keyword search reads a run of their letters as
/// overlapping pairs of characters (and each character alone), so any shared run of two or more
/// characters matches, and one character matches the records holding it.
public enum BigramScript: Sendable, Equatable {
    case han, kana, hangul, thai

    /// The script of `s` when it is one of these (the prolonged sound mark ー and the iteration
    /// marks 々 〻 count as the letters they follow).
    @inline(__always)
    public static func of(_ s: Unicode.Scalar) -> BigramScript? {
        let v = s.value
        if v < 0x0E00 { return nil }
        switch v {
        case 0x0E01...0x0E3A, 0x0E40...0x0E4E: return .thai
        case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: return .hangul
        case 0x3005, 0x3007, 0x303B, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3134F: return .han
        case 0x3041...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F: return .kana
        default: return nil
        }
    }

    /// Whether `text` holds any letter of these scripts.
    public static func occurs(in text: String) -> Bool {
        text.unicodeScalars.contains { of($0) != nil }
    }

    /// The keyword tokens of one run of such letters: each character, then each adjacent pair, in
    /// order of position (`ab c` → a, ab, b, bc, c).
    public static func tokens(_ run: [Unicode.Scalar]) -> [String] {
        var out: [String] = []
        out.reserveCapacity(2 * run.count)
        for (i, s) in run.enumerated() {
            out.append(String(s))
            if i + 1 < run.count {
                var v = String.UnicodeScalarView()
                v.append(s)
                v.append(run[i + 1])
                out.append(String(v))
            }
        }
        return out
    }

    /// The query terms of one run: its pairs, or the character itself for a run of one.
    public static func queryTerms(_ run: [Unicode.Scalar]) -> [String] {
        if run.count == 1 { return [String(run[0])] }
        return (0..<(run.count - 1)).map { i in
            var v = String.UnicodeScalarView()
            v.append(run[i])
            v.append(run[i + 1])
            return String(v)
        }
    }
}
