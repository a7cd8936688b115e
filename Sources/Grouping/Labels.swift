import KindredCore
/// Deterministic group labels of at most `maxLength` characters: a short key phrase naming what
/// the members share, then a few keywords, e.g. "missed the train (platform, late)".
///
/// The key phrase is the best n-gram of the members' descriptions against the rest of the
/// category — shared by at least two members, rare elsewhere, 1 to `maxN` words, never starting or
/// ending with a stopword of its language — as the medoid writes it. When the group has a shared element (the
/// specific word its members share, `SharedElement.swift`), the phrase is the best such n-gram
/// holding that word, else the word itself. An n-gram in more than a fifth of the descriptions of
/// the category's other groups ("dreamt") names nothing. Only a group whose members share no word at all is
/// named by a clause of its medoid (the one whose words the other members share most). Keywords
/// are c-TF-IDF terms of the group within its category, never stopwords and never words of the
/// phrase; the last ones are dropped until the label fits.
enum Labels {
    static let maxLength = 60
    static let maxPhrase = 40
    static let maxN = 4
    /// Words read per description (long passages are labelled from their start).
    static let maxWords = 200
    /// An n-gram in more than this share of the descriptions of the category's other groups is too
    /// common to name a group.
    static let genericShare = 0.2

    struct Word {
        let lower: String
        let text: String
    }

    /// The clauses of `text` (split at sentence and clause punctuation), each as its words.
    static func clauses(_ text: String) -> [[Word]] {
        var out: [[Word]] = [], current: [Word] = [], word = "", count = 0
        func endWord() {
            let w = trimmed(word)
            if !w.isEmpty { current.append(Word(lower: w.lowercased(), text: w)); count += 1 }
            word = ""
        }
        func endClause() {
            endWord()
            if !current.isEmpty { out.append(current) }
            current = []
        }
        for ch in text {
            if count >= maxWords { break }
            if ch.isLetter || ch.isNumber {
                word.append(ch)
            } else if (ch == "'" || ch == "’" || ch == "-") && !word.isEmpty {
                word.append(ch == "’" ? "'" : ch)
            } else if ".!?;:,()[]\"“”…—–".contains(ch) {
                endClause()
            } else {
                endWord()
            }
        }
        endClause()
        return out
    }

    /// `word` without leading or trailing apostrophes and hyphens.
    static func trimmed(_ word: String) -> String {
        var s = Substring(word)
        while let f = s.first, f == "'" || f == "-" { s = s.dropFirst() }
        while let l = s.last, l == "'" || l == "-" { s = s.dropLast() }
        return String(s)
    }

    /// The n-grams of one clause (1…`maxN` words) that neither start nor end with a stopword:
    /// lower-case key → text as written.
    static func ngrams(_ words: [Word], _ stopwords: Set<String> = Stopwords.english, into out: inout [String: String]) {
        forEachNgram(words, stopwords) { key, text in if out[key] == nil { out[key] = text } }
    }

    /// Calls `body(key, text)` for each such n-gram, in reading order (by first word, then length).
    static func forEachNgram(_ words: [Word], _ stopwords: Set<String> = Stopwords.english, _ body: (String, String) -> Void) {
        for i in words.indices where !stopwords.contains(words[i].lower) && words[i].lower.count > 1 {
            var key = "", text = ""
            for j in i..<min(words.count, i + maxN) {
                key += (j == i ? "" : " ") + words[j].lower
                text += (j == i ? "" : " ") + words[j].text
                if !stopwords.contains(words[j].lower) && words[j].lower.count > 1 { body(key, text) }
            }
        }
    }

    /// `words` joined, cut at a word boundary to `limit` characters (with "…", trailing stopwords dropped).
    static func fit(_ words: [Word], _ stopwords: Set<String> = Stopwords.english, limit: Int) -> String {
        let whole = words.map(\.text).joined(separator: " ")
        if whole.count <= limit { return whole }
        var kept: [Word] = [], length = 0
        for w in words {
            let next = length + (kept.isEmpty ? 0 : 1) + w.text.count
            if next > limit - 1 { break }
            kept.append(w)
            length = next
        }
        while let last = kept.last, kept.count > 1, stopwords.contains(last.lower) { kept.removeLast() }
        if kept.isEmpty { return String(whole.prefix(limit - 1)) + "…" }
        return kept.map(\.text).joined(separator: " ") + "…"
    }

    /// "phrase (k1, k2, …)" with keywords dropped from the end until it fits `maxLength`.
    static func text(_ phrase: String, _ keywords: [String]) -> (String, [String]) {
        var kw = keywords
        while !kw.isEmpty && "\(phrase) (\(kw.joined(separator: ", ")))".count > maxLength { kw.removeLast() }
        return (phrase, kw)
    }

    /// Labels of the groups of one category: group id → member descriptions, medoid first, and the
    /// specific word its members share (`SharedElement.swift`), if any, which the key phrase then holds.
    static func labels(_ groups: [(id: Int64, descriptions: [String], element: String?)], keywordCount: Int) -> [Int64: GeneratedLabel] {
        var grams: [Int64: [[String: String]]] = [:]
        var clausesOf: [Int64: [[Word]]] = [:], stopwordsOf: [Int64: Set<String>] = [:]
        var df: [String: Int] = [:]
        var total = 0
        for g in groups {
            var perMember: [[String: String]] = []
            for (i, d) in g.descriptions.enumerated() {
                let cs = clauses(d), stopwords = Stopwords.list(for: TextLanguage.detect(d))
                if i == 0 { (clausesOf[g.id], stopwordsOf[g.id]) = (cs, stopwords) }
                var set: [String: String] = [:]
                for c in cs { ngrams(c, stopwords, into: &set) }
                for key in set.keys { df[key, default: 0] += 1 }
                perMember.append(set)
                total += 1
            }
            grams[g.id] = perMember
        }
        var documents: [Int64: [String]] = [:], exclude: [Int64: Set<String>] = [:], phrases: [Int64: String] = [:]
        for g in groups {
            let members = grams[g.id]!, medoidClauses = clausesOf[g.id] ?? []
            phrases[g.id] = phrase(members, medoidClauses, df: df, total: total, element: g.element,
                                   stopwords: stopwordsOf[g.id] ?? Stopwords.english)
            exclude[g.id] = Set(clauses(phrases[g.id]!).flatMap { $0.map(\.lower) })
            documents[g.id] = g.descriptions
        }
        let kw = Keywords.cTFIDF(documents, exclude: exclude, count: keywordCount)
        var out: [Int64: GeneratedLabel] = [:]
        for g in groups {
            let (p, k) = text(phrases[g.id]!, kw[g.id] ?? [])
            out[g.id] = GeneratedLabel(description: p, keywords: k)
        }
        return out
    }

    /// The key phrase of one group (`members[0]` is the medoid's n-grams, lower-case key → text as
    /// written): the best n-gram shared by two or more members (holding `element` when given), as
    /// the medoid writes it; else `element` as first written; else the medoid's most central clause.
    static func phrase(_ members: [[String: String]], _ medoidClauses: [[Word]], df: [String: Int], total: Int,
                       element: String? = nil, stopwords: Set<String> = Stopwords.english) -> String {
        var cover: [String: Int] = [:]
        for m in members { for key in m.keys { cover[key, default: 0] += 1 } }
        // A word the category's other groups write too ("dreamt", "today") names no group, not even
        // as its element.
        let others = total - members.count
        func generic(_ key: String) -> Bool {
            others > 0 && Double((df[key] ?? 0) - (cover[key] ?? 0)) > genericShare * Double(others)
        }
        let stem = element.flatMap { generic($0.lowercased()) ? nil : SharedElementRule.stem($0.lowercased()) }
        func holdsElement(_ key: String) -> Bool {
            guard let stem else { return true }
            return key.split(separator: " ").contains { SharedElementRule.stem(String($0)) == stem }
        }
        // Where each n-gram first appears in the medoid (ties go to the earliest).
        var position: [String: Int] = [:]
        for c in medoidClauses {
            forEachNgram(c, stopwords) { key, _ in if position[key] == nil { position[key] = position.count } }
        }
        var best: (key: String, score: Int, n: Int, at: Int)?
        for (key, c) in cover where c >= 2 && holdsElement(key) && !generic(key) {
            let n = key.split(separator: " ").count
            let specificity = Keywords.log1pSafe(Double(total) / Double(df[key] ?? 1))
            let w = Double(c) / Double(members.count) * specificity * (1 + 0.25 * Double(n - 1))
            let score = Int((w * 1_000_000).rounded()), at = position[key] ?? Int.max
            if let b = best, (b.score, b.n, -b.at) > (score, n, -at) || ((b.score, b.n, b.at) == (score, n, at) && b.key < key) { continue }
            best = (key, score, n, at)
        }
        if let best, let written = members.lazy.compactMap({ $0[best.key] }).first {
            return fit(clauses(written).first ?? [], stopwords, limit: maxPhrase)
        }
        if let stem {
            // The element as a member first writes it (its forms differ, so no n-gram covers two).
            for m in members {
                for (key, text) in m.sorted(by: { $0.key < $1.key }) where !key.contains(" ") && SharedElementRule.stem(key) == stem {
                    return text
                }
            }
        }
        // The medoid's clause whose words the other members share most (ties: the first).
        var central: (clause: [Word], score: Int)?
        for c in medoidClauses {
            let words = Set(c.map(\.lower).filter { !stopwords.contains($0) })
            let score = words.reduce(0) { $0 + max(0, (cover[$1] ?? 0) - 1) }
            if central == nil || score > central!.score { central = (c, score) }
        }
        return central.map { fit($0.clause, stopwords, limit: maxPhrase) } ?? ""
    }
}
