import Foundation

/// BM25 as SQLite FTS5's `bm25()` computes it for a one-column table with weight 1 (k1 = 1.2,
/// b = 0.75), term by term in the same floating-point order, so a score computed here equals the
/// one FTS5 returns (negated: FTS5 returns −score so that ascending order is best first).
///
///     score(d) = Σ over query phrases p:  idf(p) · tf(p, d) · (k1 + 1) / (tf(p, d) + k1 · (1 − b + b · |d| / avgdl))
///     idf(p)   = ln((N − n(p) + 0.5) / (n(p) + 0.5)), or 10⁻⁶ when that is not positive
///
/// N is every row of the table (every owner's records), n(p) the rows holding p, |d| the tokens of
/// d and avgdl the mean tokens per row.
public enum BM25 {
    public static let k1 = 1.2
    public static let b = 0.75

    public static func idf(rows: Int, hits: Int) -> Double {
        var idf = log((Double(rows - hits) + 0.5) / (Double(hits) + 0.5))
        if idf <= 0 { idf = 1e-6 }
        return idf
    }

    @inline(__always)
    public static func term(idf: Double, tf: Double, length: Double, averageLength: Double) -> Double {
        idf * ((tf * (k1 + 1.0)) / (tf + k1 * (1 - b + b * length / averageLength)))
    }
}
