import KindredCore
/// c-TF-IDF over group descriptions within one category: a term scores high for a group when it
/// is frequent in that group and rare across the category's groups.
enum Keywords {
    /// The words of `text` that can be keywords: lower-case, no stopwords of its language, at least two characters.
    static func tokens(_ text: String) -> [String] {
        let stopwords = Stopwords.list(for: TextLanguage.detect(text))
        return Labels.clauses(text).flatMap { $0.map(\.lower) }.filter { $0.count > 1 && !stopwords.contains($0) }
    }

    /// Top `count` keywords for each group of `documents` (group id → member descriptions),
    /// excluding words already in `exclude[group]`; ties alphabetical.
    static func cTFIDF(_ documents: [Int64: [String]], exclude: [Int64: Set<String>], count: Int) -> [Int64: [String]] {
        var tf: [Int64: [String: Int]] = [:]
        var total: [String: Int] = [:]
        var words = 0
        for (g, docs) in documents {
            for t in docs.flatMap(tokens) {
                tf[g, default: [:]][t, default: 0] += 1
                total[t, default: 0] += 1
                words += 1
            }
        }
        guard !documents.isEmpty else { return [:] }
        let avg = Double(words) / Double(documents.count)
        var out: [Int64: [String]] = [:]
        for (g, counts) in tf {
            let size = Double(counts.values.reduce(0, +))
            let scored = counts.filter { !(exclude[g]?.contains($0.key) ?? false) }.map { t, n -> (String, Int) in
                let w = Double(n) / size * log1pSafe(avg / Double(total[t]!))
                return (t, Int((w * 1_000_000).rounded()))
            }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
            out[g] = scored.prefix(count).map(\.0)
        }
        return out
    }

    /// ln(1 + x) for x ≥ 0 without Foundation: binary exponent plus an atanh series
    /// (absolute error < 1e-9, deterministic on every platform).
    static func log1pSafe(_ x: Double) -> Double {
        var y = 1 + x
        var k = 0.0
        while y > 2 { y /= 2; k += 1 }
        while y < 1 { y *= 2; k -= 1 }
        let z = (y - 1) / (y + 1), z2 = z * z
        var term = z, sum = 0.0
        for n in stride(from: 1.0, through: 41.0, by: 2.0) { sum += term / n; term *= z2 }
        return 2 * sum + k * 0.6931471805599453
    }
}
