import KindredCore
import JSONRPC
import Storage
import VectorIndex
import LinearAlgebra
import KindredProtocol

extension KindredService {
    enum SearchMode: String { case hybrid, semantic, keyword }

    func searchSimilar(_ req: SearchSimilar, _ ctx: RequestContext) throws(ResponseError) -> SearchResults {
        let owner = req.owner, id = req.id, limit = req.limit ?? settings.search.defaultLimit
        let filters = req.filters?.applied ?? KindredCore.SearchFilters()
        let version = indexVersion
        guard let stored = try withReader({ try $0.get(owner: owner, id: id) }) else { throw .notFound("record", id: id, owner: owner) }
        var found = readIndex { $0.vector(rowid: stored.rowid) }
        if found == nil { found = try withReader { try $0.vector(rowid: stored.rowid, indexVersion: version) } }
        guard let vector = found else {
            throw ResponseError(code: .notFound, message: "record \(id) has no vector of index version \(version) yet",
                                data: ["what": "vector", "id": .string(id), "indexVersion": .string(version.description)])
        }
        try ctx.checkCancelled()
        let allowed = filters.isEmpty ? nil : try withReader { try $0.filteredRowids(owner: owner, filters: filters) }
        let hits = readIndex { $0.search(owner: owner, query: vector, k: limit, allowed: allowed, exclude: stored.rowid) }
        try ctx.checkCancelled()
        return try results(hits.map { ($0.rowid, Double($0.score)) }, owner: owner, mode: .semantic, words: [], degraded: nil)
    }

    func searchQuery(_ req: SearchQuery, _ ctx: RequestContext) throws(ResponseError) -> SearchResults {
        let owner = req.owner, limit = req.limit ?? settings.search.defaultLimit
        let filters = req.filters?.applied ?? KindredCore.SearchFilters()
        var query = req.text
        var notes: [String] = []
        let maxQueryChars = settings.search.maxQueryChars
        if let text = query, let cut = QueryText.cut(text, maxScalars: maxQueryChars) {
            query = cut
            notes.append("query text cut to \(cut.unicodeScalars.count) of \(text.unicodeScalars.count) characters (search.maxQueryChars is \(maxQueryChars))")
        }
        let maxTerms = settings.search.maxKeywordTerms
        // The language the query is read in: its stopwords and stems, and whether the model serves it.
        let language = try query.map { text throws(ResponseError) in try queryLanguage(owner: owner, text: text) } ?? nil
        let terms = KeywordTerms(query: query ?? "", maxTerms: maxTerms, language: language)
        var degraded: String?
        var queryVector = req.vector
        var mode = req.searchMode ?? .hybrid
        // While index/rebuild builds the current version, the previous one may still serve.
        let previous = queryVector == nil && mode != .keyword && query != nil ? servingPrevious(owner: owner) : nil
        if let previous, let text = query {
            do {
                queryVector = try previous.embedder.embed([text], as: .query, isCancelled: { ctx.isCancelled }).first
                notes.append("index version \(indexVersion) is not complete yet (index/rebuild); semantic matching uses the previous version \(previous.version)")
            } catch {
                try ctx.checkCancelled()
                if mode == .semantic { throw ResponseError.embedderFailed(error) }
                degraded = "the previous model failed: \(error); keyword matching only"
            }
        } else if queryVector == nil, mode != .keyword, let text = query {
            if embedder != nil {
                do {
                    queryVector = try embedTexts([text], as: .query, owner: owner, isCancelled: { ctx.isCancelled }, log: { ctx.log(.warning, $0) }).first
                } catch let e as DailyLimitReached {
                    if mode == .semantic { throw e.responseError }
                    degraded = "\(e); keyword matching only"
                } catch let e as ResponseError {
                    throw e
                } catch {
                    try ctx.checkCancelled()
                    if mode == .semantic { throw ResponseError.embedderFailed(error) }
                    degraded = "embedder failed: \(error); keyword matching only"
                }
            } else if mode == .semantic {
                throw ResponseError.embedderUnavailable(embedderProblem ?? "no embedder")
            } else {
                degraded = "\(embedderProblem ?? "no embedder"); keyword matching only"
            }
        }
        if mode == .hybrid && queryVector == nil { mode = .keyword }
        if mode == .hybrid && query == nil { mode = .semantic }
        if mode != .semantic, terms.dropped > 0 {
            notes.append("keyword search used the first \(maxTerms) informative terms of \(maxTerms + terms.dropped) (search.maxKeywordTerms)")
        }
        try ctx.checkCancelled()
        let allowed = filters.isEmpty ? nil : try withReader { try $0.filteredRowids(owner: owner, filters: filters) }
        let pool = max(limit, settings.search.candidatePool)
        var ranked: [(Int64, Double)]
        switch mode {
        case .semantic:
            let hits = try semanticHits(previous, owner: owner, query: queryVector!, k: limit, allowed: allowed)
            ranked = hits.map { ($0.rowid, Double($0.score)) }
        case .keyword:
            ranked = try keywordHits(owner: owner, terms: terms, filters: filters, allowed: allowed, limit: limit)
                .map { ($0.rowid, $0.score) }
        case .hybrid:
            // Score fusion adds a non-negative bonus to the cosine, so a record outside both the
            // semantic top `limit` and the keyword pool cannot reach the fused top `limit`: the
            // semantic side needs only `limit` exact rows. Rank fusion needs the whole pool.
            let rrf = settings.search.fusion == "rrf"
            let semantic = try semanticHits(previous, owner: owner, query: queryVector!, k: rrf ? pool : limit, allowed: allowed)
            try ctx.checkCancelled()
            let keyword = try keywordHits(owner: owner, terms: terms, filters: filters, allowed: allowed, limit: pool)
            if rrf {
                ranked = Array(ReciprocalRankFusion.fuse([semantic.map(\.rowid), keyword.map(\.rowid)], k: Double(settings.search.rrfK)).prefix(limit))
            } else {
                let served = embedderServes(language)
                if !served, let language {
                    notes.append("the embedding model does not serve language '\(language)' (embedder.languages): keyword matching leads this ranking")
                }
                ranked = try fuseScores(owner: owner, semantic: semantic.map { ($0.rowid, Double($0.score)) }, keyword: keyword, terms: terms.terms,
                                        query: queryVector!, limit: limit, previous: previous, lead: served ? .semantic : .keyword)
            }
            if semantic.isEmpty, !keyword.isEmpty, degraded == nil, previous == nil {
                let waiting = try withReader { try $0.pendingSearchableCount(owner: owner, indexVersion: indexVersion) }
                if waiting > 0 {
                    let other = try awaitingRebuild(owner: owner)
                    let hint = other > 0 ? ", \(other) of them with vectors of another index version (index/rebuild re-embeds them)" : ""
                    degraded = "\(waiting) records wait for embedding\(hint); these results come from keyword matching only"
                }
            }
        }
        try ctx.checkCancelled()
        // Passages and highlights look for the words' stems in a stemmed language ("Fenstern" → "fenst").
        let shown = terms.language?.isStemmed == true ? terms.terms.map { KeywordText.queryTerm($0, language: terms.language) } : terms.terms
        return try results(ranked, owner: owner, mode: mode, words: shown, degraded: degraded, notes: notes)
    }

    func results(_ ranked: [(Int64, Double)], owner: String, mode: SearchMode, words: [String], degraded: String?, notes: [String] = []) throws(ResponseError) -> SearchResults {
        var notes = notes
        let rows = try withReader { try $0.records(rowids: ranked.map(\.0)) }
        let maxChars = settings.passages.maxChars, highlightChars = settings.search.highlightChars
        // What the query's words match, worked out once for every hit.
        let passagePrefixes = Passages.prefixes(of: words), highlightPrefixes = TermCoverage.prefixes(of: words)
        var out: [SearchResults.Hit] = []
        for (rowid, score) in ranked {
            guard let s = rows[rowid] else { continue }  // deleted meanwhile
            let passage = Passages.best(in: s.record.text, prefixes: passagePrefixes, maxScalars: maxChars)
            let highlight = Highlight.best(in: passage, prefixes: highlightPrefixes, maxScalars: highlightChars)
            out.append(SearchResults.Hit(
                id: s.record.id, revision: Int(s.record.revision), score: score, kind: s.record.kind, date: s.record.date,
                passage: .init(start: passage.start, end: passage.end, text: passage.text),
                highlight: .init(start: highlight.start, end: highlight.end, text: highlight.text)))
        }
        var result = SearchResults(results: out, mode: mode.rawValue, degraded: degraded.map { SearchResults.Degraded(reason: $0) })
        // What the semantic side cannot show yet (the embedder works in the background).
        let waiting = try withReader { try $0.pendingSearchableCount(owner: owner, indexVersion: indexVersion) }
        if waiting > 0 {
            result.pending = waiting
            let other = try awaitingRebuild(owner: owner)
            if other > 0, !notes.contains(where: { $0.contains("index/rebuild") }) {
                notes.append("\(other) records hold vectors of another index version, not \(indexVersion): index/rebuild re-embeds them")
            }
        }
        if !notes.isEmpty { result.notes = notes }
        return result
    }
}

extension KindredService {
    /// How many of `owner`'s searchable records hold vectors of another index version and wait for
    /// `index/rebuild`: a remote provider leaves them to it (the local model re-embeds them on its own).
    func awaitingRebuild(owner: String) throws(ResponseError) -> Int {
        guard embedder?.remoteProvider != nil else { return 0 }
        let version = indexVersion
        return try withReader { try $0.searchableOfOtherVersions(owner: owner, indexVersion: version) }
    }
}

extension KindredService {
    /// Score fusion (`ScoreFusion`): the coverage of the best keyword hit is read from its text,
    /// keyword-only candidates get their cosine from the index, and the bonus is scaled by the
    /// owner's cosine spread in that index (`CosineScale`).
    func fuseScores(owner: String, semantic: [(rowid: Int64, cosine: Double)], keyword: [(rowid: Int64, score: Double)], terms: [String],
                    query: [Float], limit: Int, previous: PreviousVersion? = nil, lead: ScoreFusion.Lead = .semantic) throws(ResponseError) -> [(Int64, Double)] {
        var coverage = 0.0
        if let best = keyword.first, let text = try withReader({ try $0.records(rowids: [best.rowid]) })[best.rowid]?.record.text {
            coverage = TermCoverage.share(of: terms, in: text)
        }
        // Keyword-only candidates get the cosine their row has in the index that serves, computed
        // as its search computes it (nil for a candidate without a vector of that version).
        let inSemantic = Set(semantic.map(\.rowid))
        let others = keyword.map(\.rowid).filter { !inSemantic.contains($0) }
        let scores = others.isEmpty ? [] : previous.map { p in p.index.with { $0.exactScores(query: query, rowids: others) } }
            ?? readIndex { $0.exactScores(query: query, rowids: others) }
        var cosines: [Int64: Double] = [:]
        for (rowid, score) in zip(others, scores) { if let score { cosines[rowid] = Double(score) } }
        let fused = ScoreFusion.fuse(semantic: semantic, keyword: keyword.map { ($0.rowid, $0.score) }, coverage: coverage,
                                     weight: settings.search.keywordWeight, scale: fusionScale(owner: owner, previous: previous), lead: lead) { cosines[$0] }
        return fused.prefix(limit).map { ($0.rowid, $0.score) }
    }
}

/// Reciprocal-rank fusion: score = Σ 1 / (k + rank); ties by first appearance.
enum ReciprocalRankFusion {
    static func fuse(_ lists: [[Int64]], k: Double) -> [(Int64, Double)] {
        var score: [Int64: Double] = [:]
        var order: [Int64] = []
        for list in lists {
            for (rank, id) in list.enumerated() {
                if score[id] == nil { order.append(id) }
                score[id, default: 0] += 1 / (k + Double(rank + 1))
            }
        }
        let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        return order.map { ($0, score[$0]!) }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : position[$0.0]! < position[$1.0]! }
    }
}
