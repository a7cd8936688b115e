import Grouping
import LinearAlgebra

/// Synthetic occurrences: clusters of unit vectors around random centres.
public enum SyntheticData {
    /// A random unit vector of dimension `d`.
    public static func randomUnit(_ d: Int, _ rng: inout SeededGenerator) -> [Float] {
        Vectors.normalized((0..<d).map { _ in rng.normal() })
    }

    /// unit(centre + spread · u) for a random unit u: about 1/√(1+spread²) to the centre and
    /// 1/(1+spread²) between two such points.
    public static func near(_ centre: [Float], spread: Float, _ rng: inout SeededGenerator) -> [Float] {
        let u = randomUnit(centre.count, &rng)
        return Vectors.normalized(zip(centre, u).map { $0 + spread * $1 })
    }

    /// A history of `records` records with `perRecord` occurrences each. Each occurrence picks a
    /// category and one of `clusters` situations of that category, or (with `noiseShare`) a
    /// one-off vector. Ids start at `firstID`; record ids are "r<n>"; dates run over 2025.
    public static func history(
        seed: UInt64, owner: String = "owner", records: Int, perRecord: Int = 2,
        categories: [String] = ["person", "place", "action"], clusters: Int = 8,
        dimension: Int = 64, spread: Float = 0.55, noiseShare: Double = 0.2, firstID: Int64 = 1,
        firstRecord: Int = 0
    ) -> [Occurrence] {
        var rng = SeededGenerator(seed: seed)
        var centres: [[[Float]]] = []
        for _ in categories { centres.append((0..<clusters).map { _ in randomUnit(dimension, &rng) }) }
        var out: [Occurrence] = []
        var id = firstID
        for r in firstRecord..<(firstRecord + records) {
            let day = 1 + (r * 7) % 365
            let date = isoDate(dayOfYear: day)
            for _ in 0..<perRecord {
                let c = Int.random(in: 0..<categories.count, using: &rng)
                let k = Int.random(in: 0..<clusters, using: &rng)
                let oneOff = Double.random(in: 0..<1, using: &rng) < noiseShare
                let v = oneOff ? randomUnit(dimension, &rng) : near(centres[c][k], spread: spread, &rng)
                let word = oneOff ? "other\(id)" : "situation\(k)"
                out.append(Occurrence(
                    id: id, owner: owner, category: categories[c], description: "\(categories[c]) \(word)",
                    excerpt: "excerpt \(id) of r\(r)", recordID: "r\(r)", recordRevision: 1, recordDate: date,
                    tags: oneOff ? [] : ["\(categories[c])-\(k % 3)"], vector: v))
                id += 1
            }
        }
        return out
    }

    /// "2025-MM-DD" for a day of 2025 (1...365).
    public static func isoDate(dayOfYear: Int) -> String {
        let months = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        var d = max(1, min(365, dayOfYear)), m = 0
        while d > months[m] { d -= months[m]; m += 1 }
        func two(_ x: Int) -> String { x < 10 ? "0\(x)" : "\(x)" }
        return "2025-\(two(m + 1))-\(two(d))"
    }
}
