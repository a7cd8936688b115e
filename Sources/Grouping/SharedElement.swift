import LinearAlgebra
import KindredCore
/// Evidence of a shared specific element, without a language model: DreamLog's rule for its judge,
/// "name a specific shared element; no match on a broad mood or a common noun alone", as a check
/// on words.
///
/// An occurrence's *terms* are the words of its description and excerpt, lower-case, without the
/// stopwords of the language they are written in, of at least three letters, each cut to its stem
/// (Snowball's for a language keyword search stems, else a crude English one, `stem`), so "trains"
/// and "train" are one term. A term is *specific* in a category when at most `evidenceMaxShare` of the
/// category's basis occurrences hold it (and at least two, so that it can be shared at all): a name,
/// an object, a place the person writes about now and then, not "dream" or "today" in a dream
/// journal. The basis is the category's first `backgroundSample` occurrences by id, as for the
/// background level, so the specific terms stop moving once a category is that large.
///
/// The rule: an occurrence joins a group, or founds one with a seed's representative, only when
/// one of its specific terms is also held by the representative and by `evidenceExamples` of the
/// supporting examples shown with it from other records (all of them when fewer are shown). A category with fewer
/// than `evidenceMinimum` occurrences has no measure of what is specific, and needs no evidence.
/// The element found is the one the most of them share (then the rarer, then the first in
/// alphabetical order); it is what a person is shown as the reason the members belong together.
public struct SharedElementRule: Sendable {
    /// Per category: how many basis occurrences hold each term, and the basis size.
    public struct Table: Sendable {
        public var holders: [String: Int]
        public var basis: Int
    }

    public let maxShare: Float
    /// Examples (besides the representative) that must hold the element, when that many are shown.
    public let minExamples: Int

    public init(maxShare: Float, minExamples: Int) {
        self.maxShare = maxShare
        self.minExamples = minExamples
    }

    /// The terms of one text, in the language it is written in.
    public static func terms(_ text: String) -> Set<String> { terms(text, TextLanguage.detect(text)) }

    /// The terms of one text written in `language` (nil: not known, read as English).
    static func terms(_ text: String, _ language: TextLanguage?) -> Set<String> {
        let stemmer = stemmer(for: language), stopwords = Stopwords.list(for: language)
        var out = Set<String>()
        for clause in Labels.clauses(text) {
            for w in clause where w.lower.unicodeScalars.count >= 3 && !stopwords.contains(w.lower) {
                out.insert(stem(w.lower, stemmer))
            }
        }
        return out
    }

    /// The terms of an occurrence: its description's and its excerpt's, in the language they are written in.
    public static func terms(of o: Occurrence) -> Set<String> {
        if o.description == o.excerpt { return terms(o.description) }
        let language = TextLanguage.detect(o.description + " . " + o.excerpt)
        return terms(o.description, language).union(terms(o.excerpt, language))
    }

    /// The Snowball stemmer of `language` when keyword search stems it (`TextLanguage.isStemmed`:
    /// German, French, Spanish, …); nil for English and for a language not known, which take the
    /// crude English stem.
    static func stemmer(for language: TextLanguage?) -> Snowball? {
        guard let language, language.isStemmed else { return nil }
        return Snowball.stemmer(for: language)
    }

    /// `w`'s stem by `stemmer`, or the crude English one.
    static func stem(_ w: String, _ stemmer: Snowball?) -> String { stemmer?.stem(w) ?? stem(w) }

    /// A crude English stem: the longest of a few inflectional endings is cut while at least three
    /// letters remain ("trains" → "train", "missing" → "miss", "hurried" → "hurri").
    public static func stem(_ w: String) -> String {
        let scalars = Array(w.unicodeScalars)
        for suffix in ["ingly", "edly", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s"] {
            let s = Array(suffix.unicodeScalars)
            guard scalars.count - s.count >= 3, Array(scalars.suffix(s.count)) == s else { continue }
            if suffix == "s", scalars.count >= 2, scalars[scalars.count - 2] == "s" { continue }  // "glass", "dress"
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars.prefix(scalars.count - s.count))
            return String(out)
        }
        return w
    }

    /// The holders table of a category's basis occurrences (their term sets).
    public static func table<S: Sequence>(_ basis: S) -> Table where S.Element == Set<String> {
        var holders: [String: Int] = [:]
        var n = 0
        for terms in basis {
            n += 1
            for t in terms { holders[t, default: 0] += 1 }
        }
        return Table(holders: holders, basis: n)
    }

    /// Whether `term` is specific in a category of this table.
    public func isSpecific(_ term: String, _ table: Table) -> Bool {
        let held = table.holders[term] ?? 0
        return held >= 2 && Double(held) <= Double(maxShare) * Double(table.basis)
    }

    /// The element `terms` shares with the representative and an example, or nil (see the type).
    public func sharedElement(_ terms: Set<String>, representative: Set<String>, examples: [Set<String>], _ table: Table) -> String? {
        var best: (term: String, count: Int, held: Int)?
        for t in terms where representative.contains(t) && isSpecific(t, table) {
            let count = examples.reduce(0) { $0 + ($1.contains(t) ? 1 : 0) }
            guard count >= min(minExamples, examples.count) else { continue }
            let held = table.holders[t] ?? 0
            if let b = best, b.count > count || (b.count == count && (b.held < held || (b.held == held && b.term < t))) { continue }
            best = (t, count, held)
        }
        return best?.term
    }
}

/// The shared-element rule as the judge every automatic membership asks first (`Judge.swift`): a
/// no when the occurrence shares no specific element with the group's representative and its
/// examples; otherwise the configured judge (client or remote), if any, decides. An occurrence at
/// least `evidenceAbove` similar to the representative needs no shared word: so close a match is
/// its own evidence. Nor does a short text (fewer than `evidenceMinTerms` terms): a request of a
/// few words says one thing, and its vector says it; a journal entry tells a setting, people and a
/// mood besides its situation, and its vector leans towards what the writer always writes about.
final class SharedElementJudge {
    let occurrences: [Int64: Occurrence]
    let sample: Int
    let minimum: Int
    /// The thresholds in force in the scope being worked on (set by `Workspace.run`).
    var config: GroupingConfig
    private var tables: [Scope: SharedElementRule.Table?] = [:]
    private var termCache: [Int64: Set<String>] = [:]
    private var byScope: [Scope: [Int64]]?

    init(config: GroupingConfig, occurrences: [Int64: Occurrence]) {
        self.config = config
        self.occurrences = occurrences
        sample = max(2, config.backgroundSample)
        minimum = config.evidenceMinimum
    }

    /// The rule for `config`, or nil when it is off (`evidenceMaxShare` 0).
    static func make(config: GroupingConfig, occurrences: [Int64: Occurrence]) -> SharedElementJudge? {
        config.evidenceMaxShare > 0 ? SharedElementJudge(config: config, occurrences: occurrences) : nil
    }

    /// `outer` behind the rule (`outer` alone without one).
    static func compose(_ local: SharedElementJudge?, outer: Judge?) -> Judge? {
        guard let local else { return outer }
        return { q in
            guard local.accepts(q) else { return .no }
            return outer?(q) ?? .yes(label: nil)
        }
    }

    func terms(_ id: Int64) -> Set<String> {
        if let t = termCache[id] { return t }
        let t = occurrences[id].map(SharedElementRule.terms(of:)) ?? []
        termCache[id] = t
        return t
    }

    /// The category's table, or nil when it has fewer than `minimum` occurrences.
    func table(_ scope: Scope) -> SharedElementRule.Table? {
        if let t = tables[scope] { return t }
        if byScope == nil {
            var m: [Scope: [Int64]] = [:]
            for (id, o) in occurrences { m[Scope(owner: o.owner, category: o.category), default: []].append(id) }
            byScope = m
        }
        let ids = (byScope![scope] ?? []).sorted()
        let t = ids.count < minimum ? nil : SharedElementRule.table(ids.prefix(sample).map(terms))
        tables[scope] = t
        return t
    }

    /// The specific element `q`'s occurrence shares with its group, "" when none is needed (a close
    /// match, or a category too small to tell), nil when it shares none.
    func element(_ q: JudgeQuestion) -> String? {
        guard let occ = occurrences[q.occurrence], let rep = occurrences[q.representative] else { return nil }
        if config.evidenceAbove <= 1, config.quantise(Vectors.dot(occ.vector, rep.vector)) >= config.quantise(config.evidenceAbove) {
            return ""
        }
        // (Cheapest first: one text's words before the category's table.)
        guard terms(q.occurrence).count >= config.evidenceMinTerms else { return "" }
        guard let table = table(Scope(owner: occ.owner, category: occ.category)) else { return "" }
        let examples = q.examples.filter { occurrences[$0]?.recordID != occ.recordID }.map(terms)
        let rule = SharedElementRule(maxShare: config.evidenceMaxShare, minExamples: config.evidenceExamples)
        return rule.sharedElement(terms(q.occurrence), representative: terms(q.representative), examples: examples, table)
    }

    func accepts(_ q: JudgeQuestion) -> Bool { element(q) != nil }
}

extension PatternEngine {
    /// The specific word a group's members share (`SharedElement.swift`): among the specific terms
    /// of its category, the one held by the most of its records (at least two; then the rarer in
    /// the category, then the first in alphabetical order), shown as the form its members write
    /// most often. Nil when they share none, the rule is off, or the category is too small to tell.
    /// It is what a person is shown as the reason the members belong together.
    public static func sharedElement(of group: Group, occurrences: [Int64: Occurrence], config: GroupingConfig = GroupingConfig()) -> String? {
        SharedElementJudge.make(config: config, occurrences: occurrences)?.sharedElement(of: group)
    }
}

extension SharedElementJudge {
    /// `PatternEngine.sharedElement(of:occurrences:config:)`, with this judge's term tables (one
    /// judge serves every group of a call).
    func sharedElement(of group: Group) -> String? {
        guard let first = group.memberIDs.lazy.compactMap({ self.occurrences[$0] }).first,
              let table = table(Scope(owner: first.owner, category: first.category)) else { return nil }
        let rule = SharedElementRule(maxShare: config.evidenceMaxShare, minExamples: 0)
        var records: [String: Set<String>] = [:]
        for id in group.memberIDs {
            guard let o = occurrences[id] else { continue }
            for t in terms(id) where rule.isSpecific(t, table) { records[t, default: []].insert(o.recordID) }
        }
        let best = records.filter { $0.value.count >= 2 }.min { a, b in
            (-a.value.count, table.holders[a.key] ?? 0, a.key) < (-b.value.count, table.holders[b.key] ?? 0, b.key)
        }?.key
        guard let best else { return nil }
        var forms: [String: Int] = [:]
        for id in group.memberIDs {
            guard let o = occurrences[id] else { continue }
            let text = o.description + " . " + o.excerpt
            let stemmer = SharedElementRule.stemmer(for: TextLanguage.detect(text))
            for clause in Labels.clauses(text) {
                for w in clause where SharedElementRule.stem(w.lower, stemmer) == best { forms[w.lower, default: 0] += 1 }
            }
        }
        return forms.min { ($0.value > $1.value) || ($0.value == $1.value && $0.key < $1.key) }?.key ?? best
    }
}
