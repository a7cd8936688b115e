/// Hybrid ranking from what the two lists say about this query: every candidate is ranked by its
/// cosine to the query plus a keyword bonus,
///
///     score(d) = cos(d) + w · s · c · bm25(d) / max bm25,    s = min(1, σ / σ₀),
///
/// where `c` is the share of the query's informative terms that the best keyword hit contains, σ
/// the spread of the owner's cosines in this index version (`CosineScale`: the standard deviation
/// of the cosine between its records' vectors) and σ₀ the spread `w` is calibrated for. A keyword
/// list that matched only one word of a paraphrased question (c small) barely moves the semantic
/// order; one whose best hit holds every informative term (c = 1) lifts the records it found by up
/// to `w`. For a model whose cosines crowd together (e5's all sit in 0.75–0.95, spread 0.02–0.03)
/// the bonus shrinks with the spread: ranking by the score is then ranking by the cosine
/// standardised against the owner's background, (cos − μ) / σ, plus (w / σ₀) · c · bm25 / max, so
/// the bonus weighs as much against the semantic signal as for MiniLM instead of swamping it.
/// Candidates found only by keyword get their true cosine, so a keyword-only record is never ranked
/// on a missing score. Calibrated (bench/search-quality/README.md) on the journal's calibration
/// queries: w = 0.15 with MiniLM; σ₀ = 0.10, MiniLM's smallest spread on the bench's sets (0.095 –
/// 0.126), which there keeps w whole: across MiniLM's sets the best weight holds in cosine units
/// (0.15 – 0.2) rather than in spreads, while e5's best (0.03 – 0.05) is about w · σ / σ₀.
///
/// Where the model does not serve the query's language (`embedder.languages`), the roles swap and
/// keyword matching leads: score(d) = bm25(d) / max bm25 + w · s · cos(d). The keyword order then
/// stands but for records whose BM25 scores lie within about w · s · Δcos of each other, which the
/// cosine orders; a record only the model found enters below every keyword hit it cannot outscore.
enum ScoreFusion {
    /// Which list leads: the cosine (the model serves the text) or BM25 (it does not).
    enum Lead: Sendable { case semantic, keyword }

    struct Candidate: Equatable {
        var rowid: Int64
        var score: Double
    }

    /// - Parameters:
    ///   - semantic: cosine of each semantic candidate.
    ///   - keyword: BM25 of each keyword candidate (higher is better), best first.
    ///   - coverage: share (0…1) of the query's informative terms in the best keyword hit.
    ///   - weight: w, the largest bonus in cosine units.
    ///   - scale: s = min(1, σ / σ₀) (`KindredService.fusionScale`; 1 while σ is unmeasured).
    ///   - cosine: the cosine of a keyword-only candidate (nil when it has no vector yet).
    ///   - lead: `.keyword` ranks by bm25 / max bm25 + w · s · cos instead (coverage unused).
    static func fuse(semantic: [(rowid: Int64, cosine: Double)], keyword: [(rowid: Int64, bm25: Double)], coverage: Double,
                     weight: Double, scale: Double = 1, lead: Lead = .semantic, cosine: (Int64) -> Double?) -> [Candidate] {
        var cos: [Int64: Double] = [:]
        for s in semantic { cos[s.rowid] = s.cosine }
        var keywordOnly: [Int64: Double?] = [:]
        for k in keyword where cos[k.rowid] == nil { keywordOnly[k.rowid] = cosine(k.rowid) }
        // The lowest cosine of any candidate (semantic or keyword) that has one.
        let floor = (semantic.map(\.cosine) + keywordOnly.values.compactMap { $0 }).min() ?? 0
        let top = keyword.map(\.bm25).max() ?? 0
        var bonus: [Int64: Double] = [:]
        if lead == .keyword {
            // The cosine becomes the bonus: every score is divided by w · s, so the order is that of
            // bm25 / max / (w · s) + cos, the same function in the code below.
            let ws = weight * max(0, min(1, scale))
            let unit = top > 0 && ws > 0 ? 1 / (top * ws) : 0
            for k in keyword { bonus[k.rowid] = max(0, k.bm25) * unit }
            if ws <= 0 { return keyword.map { Candidate(rowid: $0.rowid, score: $0.bm25) } }
        } else {
            let lift = top > 0 ? weight * max(0, min(1, scale)) * max(0, min(1, coverage)) / top : 0
            for k in keyword { bonus[k.rowid] = max(0, k.bm25) * lift }
        }
        var out: [Candidate] = []
        out.reserveCapacity(cos.count + bonus.count)
        for s in semantic { out.append(Candidate(rowid: s.rowid, score: s.cosine + (bonus[s.rowid] ?? 0))) }
        for k in keyword where cos[k.rowid] == nil {
            // A record without a vector of the current version still counts, from the lowest cosine of any candidate.
            let c = (keywordOnly[k.rowid] ?? nil) ?? floor
            cos[k.rowid] = c
            out.append(Candidate(rowid: k.rowid, score: c + (bonus[k.rowid] ?? 0)))
        }
        // Ties: lower rowid first, so equal inputs give one order.
        let sorted = out.sorted { $0.score != $1.score ? $0.score > $1.score : $0.rowid < $1.rowid }
        guard lead == .keyword else { return sorted }
        // Scores in the keyword-led units: bm25 / max + w · s · cos.
        let ws = weight * max(0, min(1, scale))
        return sorted.map { Candidate(rowid: $0.rowid, score: $0.score * ws) }
    }
}
