import Testing
@testable import Service

@Suite struct ScoreFusionTests {
    typealias S = (rowid: Int64, cosine: Double)
    typealias K = (rowid: Int64, bm25: Double)

    @Test func keywordListThatMatchedLittleBarelyMovesTheSemanticOrder() {
        let semantic: [S] = [(1, 0.62), (2, 0.60), (3, 0.30)]
        let keyword: [K] = [(3, 9.0), (2, 4.0)]
        // One of four informative terms in the best keyword hit: record 3 gains 0.15 · 0.25 = 0.0375,
        // record 2 four ninths of that; the semantic order stays.
        let weak = ScoreFusion.fuse(semantic: semantic, keyword: keyword, coverage: 0.25, weight: 0.15) { _ in nil }
        #expect(weak.map(\.rowid) == [1, 2, 3])
        #expect(abs(weak[2].score - (0.30 + 0.0375)) < 1e-12)
        #expect(abs(weak[1].score - (0.60 + 0.0375 * 4 / 9)) < 1e-12)
        // Every informative term and a large weight: both keyword hits pass record 1.
        let strong = ScoreFusion.fuse(semantic: semantic, keyword: keyword, coverage: 1, weight: 0.5) { _ in nil }
        #expect(strong.map(\.rowid) == [2, 3, 1])
    }

    /// Where the model does not serve the language, BM25 leads and the cosine orders close keyword scores.
    @Test func keywordLeadsWhereTheModelIsBlind() {
        let semantic: [S] = [(1, 0.9), (2, 0.3), (3, 0.2)]
        let keyword: [K] = [(3, 10.0), (2, 9.9), (4, 5.0)]
        let fused = ScoreFusion.fuse(semantic: semantic, keyword: keyword, coverage: 0.1, weight: 0.15, lead: .keyword) { $0 == 4 ? 0.5 : nil }
        // 2: 0.99 + 0.15 · 0.3 = 1.035 passes 3: 1 + 0.03; 4: 0.5 + 0.075; 1, found by the model alone: 0.135.
        #expect(fused.map(\.rowid) == [2, 3, 4, 1])
        #expect(abs(fused[0].score - (0.99 + 0.045)) < 1e-12)
        #expect(abs(fused[3].score - 0.135) < 1e-12)
        // The semantic lead on the same lists keeps the model's first hit.
        #expect(ScoreFusion.fuse(semantic: semantic, keyword: keyword, coverage: 0.1, weight: 0.15) { _ in 0.5 }.first?.rowid == 1)
    }

    @Test func keywordOnlyCandidatesGetTheirTrueCosine() {
        let semantic: [S] = [(1, 0.5), (2, 0.4)]
        let keyword: [K] = [(7, 2.0), (8, 1.0)]
        let fused = ScoreFusion.fuse(semantic: semantic, keyword: keyword, coverage: 1, weight: 0.1) { $0 == 7 ? 0.45 : nil }
        // 8 has no vector yet: it starts from the lowest cosine seen (0.4) plus half the bonus.
        #expect(fused.map(\.rowid) == [7, 1, 8, 2])
        #expect(abs(fused[0].score - 0.55) < 1e-12)
        #expect(abs(fused[2].score - 0.45) < 1e-12)
    }

    @Test func noKeywordHitsLeaveTheSemanticOrderAndScores() {
        let semantic: [S] = [(4, 0.9), (2, 0.8), (9, 0.8)]
        let fused = ScoreFusion.fuse(semantic: semantic, keyword: [], coverage: 0, weight: 0.15) { _ in nil }
        #expect(fused == [.init(rowid: 4, score: 0.9), .init(rowid: 2, score: 0.8), .init(rowid: 9, score: 0.8)])
    }

    @Test func tiesBreakByRowidWhateverTheInputOrder() {
        let a = ScoreFusion.fuse(semantic: [(5, 0.5), (3, 0.5)], keyword: [], coverage: 0, weight: 0.15) { _ in nil }
        let b = ScoreFusion.fuse(semantic: [(3, 0.5), (5, 0.5)], keyword: [], coverage: 0, weight: 0.15) { _ in nil }
        #expect(a.map(\.rowid) == [3, 5] && b.map(\.rowid) == [3, 5])
    }

    /// Below the reference spread the bonus shrinks with the owner's spread: the same standardised
    /// cosines rank alike for two models whose cosines crowd together at different places.
    @Test func compressedCosinesRankOnTheirOwnScale() {
        let z: [(Int64, Double)] = [(1, 3.0), (2, 2.6), (3, 2.2), (4, 1.4)]
        let keyword: [K] = [(4, 8.0), (3, 6.0), (9, 5.0)]
        func ranked(mean: Double, spread: Double) -> [Int64] {
            let semantic = z.map { (rowid: $0.0, cosine: mean + spread * $0.1) }
            return ScoreFusion.fuse(semantic: semantic, keyword: keyword, coverage: 1, weight: 0.15, scale: min(1, spread / 0.1)) { _ in mean }.map(\.rowid)
        }
        let e5 = ranked(mean: 0.84, spread: 0.024), other = ranked(mean: 0.62, spread: 0.05)
        #expect(e5 == other)
        #expect(e5 == [3, 1, 4, 2, 9])
        // The full bonus on e5's cosines would have put both keyword hits and a keyword-only record first.
        let unscaled = ScoreFusion.fuse(semantic: z.map { (rowid: $0.0, cosine: 0.84 + 0.024 * $0.1) }, keyword: keyword, coverage: 1,
                                        weight: 0.15) { _ in 0.84 }.map(\.rowid)
        #expect(unscaled == [4, 3, 9, 1, 2])
        // An owner spread at least as wide as the reference keeps the whole bonus.
        let wide = ScoreFusion.fuse(semantic: [(1, 0.5), (2, 0.45)], keyword: [(2, 1.0)], coverage: 1, weight: 0.15, scale: min(1, 0.126 / 0.1)) { _ in nil }
        #expect(abs(wide[0].score - 0.6) < 1e-12 && wide[0].rowid == 2)
    }
}

@Suite struct CosineScaleTests {
    @Test func meanAndSpreadOverEveryPair() throws {
        // Three unit vectors: cosines 0 (x·y), 0.6 (x·u), 0.8 (y·u).
        let (scale, pairs) = try #require(CosineScale.measure([[1, 0], [0, 2], [0.6, 0.8]]))
        #expect(pairs == 3)
        #expect(abs(scale.mean - 1.4 / 3) < 1e-6)
        let mean: Double = 1.4 / 3
        let squares: Double = 1.0 / 3
        let variance = squares - mean * mean
        #expect(abs(scale.spread - variance.squareRoot()) < 1e-6)
        #expect(CosineScale.measure([[1, 0]]) == nil)
    }

    @Test func aSampleIsEvenlySpreadAndBounded() {
        let rows = (1...2000).map(Int64.init)
        let s = CosineScale.sample(rows)
        #expect(s.count == CosineScale.sampleRecords && s.first == 1 && s.last == 2000 && s == s.sorted())
        #expect(Set(s).count == s.count)
        #expect(CosineScale.sample([5, 7]) == [5, 7])
    }

    @Test func measuredAgainOnlyWhenTheCountMovesByTheFactor() {
        #expect(!CosineScale.isDue(stored: 100, now: 199) && CosineScale.isDue(stored: 100, now: 200))
        #expect(!CosineScale.isDue(stored: 100, now: 51) && CosineScale.isDue(stored: 100, now: 50))
    }
}

