import KindredCore
import LinearAlgebra
import Storage
import Synchronization

/// Where an owner's cosines sit for one model: the mean and spread (standard deviation) of the
/// cosine over pairs of its record vectors. MiniLM's cosines between unrelated journal entries sit
/// around 0.24 ± 0.13, multilingual-e5-small's around 0.84 ± 0.02: a keyword bonus worth a tenth of
/// a cosine is modest for the first and outweighs the whole semantic signal for the second. Hybrid
/// fusion scales the bonus down by the spread (`ScoreFusion`).
struct CosineScale: Sendable, Equatable {
    var mean: Double
    var spread: Double

    /// A floor under the spread, so that owners whose vectors are all alike keep a keyword bonus.
    static let smallestSpread = 0.005
    /// Fewer vectors than this are not measured (too few pairs to say anything).
    static let minimumRecords = 8
    /// Vectors a measurement reads at most (evenly spread over the owner's rows): 130 816 pairs.
    static let sampleRecords = 512
    /// A new measurement replaces the stored one only when its spread moved by more than this
    /// share, or its mean by more than this share of the spread (so rankings do not flicker).
    static let margin = 0.1
    /// The stored scale is measured again when the owner's vector count has grown (or shrunk) by this factor.
    static let growth = 2.0

    /// Mean and spread of the cosines over every pair of `vectors` (unit length or not).
    static func measure(_ vectors: [[Float]]) -> (scale: CosineScale, pairs: Int)? {
        let n = vectors.count
        guard n >= 2, let d = vectors.first?.count, d > 0 else { return nil }
        var units = [Float](repeating: 0, count: n * d)
        for (i, v) in vectors.enumerated() where v.count == d {
            let u = Vectors.normalized(v)
            for j in 0..<d { units[i * d + j] = u[j] }
        }
        var sum = 0.0, squares = 0.0
        units.withUnsafeBufferPointer { u in
            let base = u.baseAddress!
            for i in 0..<n {
                for j in (i + 1)..<n {
                    let c = Double(Vectors.dot(base + i * d, base + j * d, count: d))
                    sum += c
                    squares += c * c
                }
            }
        }
        let pairs = n * (n - 1) / 2
        let mean = sum / Double(pairs)
        return (CosineScale(mean: mean, spread: max(0, squares / Double(pairs) - mean * mean).squareRoot()), pairs)
    }

    /// Every `step`-th of `rowids` so that at most `sampleRecords` are taken, first and last included.
    static func sample(_ rowids: [Int64]) -> [Int64] {
        guard rowids.count > sampleRecords else { return rowids }
        let step = Double(rowids.count - 1) / Double(sampleRecords - 1)
        return (0..<sampleRecords).map { rowids[Int((Double($0) * step).rounded())] }
    }

    /// Whether a stored measurement of `stored` vectors is due again at `now` vectors.
    static func isDue(stored: Int, now: Int) -> Bool {
        Double(now) >= Double(stored) * growth || Double(now) * growth <= Double(stored)
    }
}

/// The scales in use, per owner and index version, in front of `owner_scales`.
final class CosineScales: Sendable {
    private let known = Mutex<[String: StoredScale]>([:])

    func get(_ key: String) -> StoredScale? { known.withLock { $0[key] } }
    func put(_ key: String, _ s: StoredScale) { known.withLock { $0[key] = s } }
}

extension KindredService {
    /// The cosine scale of `owner`'s vectors of `version` (`count` of them in the serving index,
    /// `rowids` listing them), measured from a sample, kept in `owner_scales` and measured again only
    /// when the count has moved by `CosineScale.growth`; a new measurement replaces the kept one only
    /// past `CosineScale.margin`. Nil while the owner has fewer than `minimumRecords` vectors.
    func cosineScale(owner: String, version: IndexVersion, count: Int, rowids: () -> [Int64]) -> CosineScale? {
        guard count >= CosineScale.minimumRecords else { return nil }
        let key = version.description + "\u{0}" + owner
        var kept = scales.get(key)
        if kept == nil { kept = (try? withReader { try $0.ownerScale(owner: owner, indexVersion: version) }) ?? nil }
        let keptScale = kept.map { CosineScale(mean: $0.mean, spread: $0.spread) }
        if let kept, !CosineScale.isDue(stored: kept.records, now: count) {
            scales.put(key, kept)
            return keptScale
        }
        let sample = CosineScale.sample(rowids())
        guard let read = try? withReader({ try $0.vectors(rowids: sample, indexVersion: version) }) else { return keptScale }
        let vectors = read.compactMap { $0 }
        guard vectors.count >= CosineScale.minimumRecords, let (measured, pairs) = CosineScale.measure(vectors) else { return keptScale }
        var next = StoredScale(mean: measured.mean, spread: measured.spread, records: count, pairs: pairs)
        if let kept, abs(measured.spread - kept.spread) <= CosineScale.margin * kept.spread,
           abs(measured.mean - kept.mean) <= CosineScale.margin * kept.spread {
            // Confirmed: the kept scale stays, due again only at the next factor.
            next = StoredScale(mean: kept.mean, spread: kept.spread, records: count, pairs: kept.pairs)
        }
        scales.put(key, next)
        try? withWriter { try $0.saveOwnerScale(next, owner: owner, indexVersion: version) }
        return CosineScale(mean: next.mean, spread: next.spread)
    }

    /// s = min(1, σ / σ₀) of `ScoreFusion`: how much of `search.keywordWeight` hybrid fusion gives,
    /// from `owner`'s spread in the index that serves its search (the previous version's while it
    /// serves) and `search.keywordSpread` (σ₀; 0: always 1). 1 while the spread is unmeasured.
    func fusionScale(owner: String, previous: PreviousVersion?) -> Double {
        let reference = settings.search.keywordSpread
        guard reference > 0 else { return 1 }
        let scale: CosineScale?
        if let previous {
            scale = cosineScale(owner: owner, version: previous.version, count: previous.index.with { $0.count(owner: owner) },
                                rowids: { previous.index.with { $0.rowids(owner: owner) } })
        } else {
            scale = cosineScale(owner: owner, version: indexVersion, count: readIndex { $0.count(owner: owner) },
                                rowids: { readIndex { $0.rowids(owner: owner) } })
        }
        guard let spread = scale?.spread else { return 1 }
        return min(1, max(spread, CosineScale.smallestSpread) / reference)
    }

    /// The scale kept for `owner` and the current version, for `index/status` (nil before one was measured).
    func keptCosineScale(owner: String) -> StoredScale? {
        let version = indexVersion
        return scales.get(version.description + "\u{0}" + owner) ?? (try? withReader { try $0.ownerScale(owner: owner, indexVersion: version) }) ?? nil
    }
}
