import LinearAlgebra

/// Representative and supporting examples of a set of unit vectors.
///
/// For unit vectors Σₖ cos(eⱼ, eₖ) = eⱼ · S with S = Σ eₖ, so the medoid is argmax eⱼ · S.
/// Comparisons are made on quantised values; ties go to the lowest id.
enum GroupGeometry {
    /// Σ of the members' vectors, summed in the given (canonical) order.
    static func sum(_ ids: [Int64], _ occurrences: [Int64: Occurrence]) -> [Float] {
        guard let first = ids.first, let d = occurrences.vectorOf(first)?.count else { return [] }
        var s = [Float](repeating: 0, count: d)
        s.withUnsafeMutableBufferPointer { out in
            for id in ids {
                guard let at = occurrences.index(forKey: id) else { continue }
                occurrences.values[at].vector.withUnsafeBufferPointer { v in
                    for i in 0..<min(d, v.count) { out[i] += v[i] }
                }
            }
        }
        return s
    }

    /// argmax eⱼ · S over `ids` (ascending), ties to the lowest id.
    static func medoid(_ ids: [Int64], sum: [Float], _ occurrences: [Int64: Occurrence], config: GroupingConfig) -> Int64? {
        var best: (id: Int64, score: Int)?
        for id in ids.sorted() {
            guard let v = occurrences.vectorOf(id) else { continue }
            let q = config.quantise(Vectors.dot(v, sum))
            if best == nil || q > best!.score { best = (id, q) }
        }
        return best?.id
    }

    /// The `count` members most similar to the medoid (the medoid first), one per record,
    /// ordered by (−similarity, id).
    static func exemplars(_ ids: [Int64], medoid: Int64, _ occurrences: [Int64: Occurrence], config: GroupingConfig) -> [Int64] {
        guard let m = occurrences.vectorOf(medoid) else { return [] }
        let ranked = ids.compactMap { id -> (Int64, Int)? in
            guard let v = occurrences.vectorOf(id) else { return nil }
            return (id, config.quantise(Vectors.dot(v, m)))
        }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        var seen = Set<String>()
        var out: [Int64] = []
        for (id, _) in ranked where out.count < config.exemplars {
            guard let r = occurrences.recordOf(id), seen.insert(r).inserted else { continue }
            out.append(id)
        }
        return out
    }
}

/// What assignment needs to know about one group, computed from its members.
final class GroupProfile {
    let id: Int64
    let records: Set<String>
    let tags: Set<String>
    /// unit(S): the direction used to propose candidates.
    let unitSum: [Float]
    let medoid: [Float]
    /// The kind of the representative's record (`KindRule.swift`).
    let kind: String
    let exemplars: [(record: String, vector: [Float])]

    init?(_ group: Group, _ occurrences: [Int64: Occurrence]) {
        guard let m = group.medoid, let mv = occurrences.vectorOf(m) else { return nil }
        var records = Set<String>(), tags = Set<String>(), ids: [Int64] = []
        for member in group.members {
            guard let i = occurrences.index(forKey: member.occurrenceID) else { continue }
            ids.append(member.occurrenceID)
            records.insert(occurrences.values[i].recordID)
            for t in occurrences.values[i].tags { tags.insert(t) }
        }
        id = group.id
        self.records = records
        self.tags = tags
        let stored = ids.count == group.members.count ? group.centroid(dimension: mv.count) : nil
        unitSum = stored ?? Vectors.normalized(GroupGeometry.sum(ids, occurrences))
        medoid = mv
        kind = occurrences[m]?.recordKind ?? ""
        exemplars = group.exemplars.compactMap { e in occurrences.index(forKey: e).map { (occurrences.values[$0].recordID, occurrences.values[$0].vector) } }
    }
}
