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
}
