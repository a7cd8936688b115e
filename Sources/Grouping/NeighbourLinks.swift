import LinearAlgebra

/// Where one group's members' nearest neighbours are, for combining (`Combination.swift`). Of group
/// S (of at most `linkRows` members; a larger one counts its `linkRows` lowest ids): its rows are
/// its members; its pool is all of its members and, from each of its top-K candidate groups by
/// centroid (ties to the lowest id), the `linkPool` members nearest unit(S) (quantised similarity,
/// ties to the lowest id) among the candidate's `linkRows` lowest ids. Each row takes its
/// `linkNeighbours` nearest in the pool (quantised similarity, ties to the lowest id, itself
/// excluded), and they are counted by the candidate group they are in.
struct NeighbourLinks {
    /// A candidate group → how many of the rows' neighbours are its members.
    let counts: [Int64: Int]
    /// The number of rows.
    let rows: Int
    /// The top-K candidate groups (best first) and the K-th's quantised centroid score (nil: fewer than K).
    let top: [Int64]
    let kth: Int?
    /// The number of combinations the sweep had made when these were counted or last found to hold.
    var at: Int

    /// The top-K candidate groups of live group `g` by centroid (best first, ties to the lowest id)
    /// and the K-th's quantised score (nil: fewer than K); nil when `g` is not live.
    static func rank(_ g: Int64, groups: ScopeGroups, config: GroupingConfig, d: Int, at: Int) -> Ranking? {
        let (gi, found) = ScopeGroups.search(g, in: groups.live)
        guard found, d > 0 else { return nil }
        var top = TopCandidates(k: config.candidateK, scale: config.scoreScale)
        groups.centroids.storage.withUnsafeBufferPointer { c in
            let base = c.baseAddress!
            for (j, h) in groups.live.enumerated() where j != gi {
                let s = Vectors.dot(base + gi * d, base + j * d, count: d)
                if top.admits(s) { top.offer(h, config.quantise(s)) }
            }
        }
        return Ranking(top: top.best.map(\.id), kth: top.best.count == config.candidateK ? top.best.last?.q : nil, at: at)
    }

    /// The links of live group `g` of `groups`, whose candidates are `ranking` (nil when `g` is not live).
    static func count(
        _ g: Int64, ranking: Ranking, groups: ScopeGroups, state: PatternState, occurrences: [Int64: Occurrence], config: GroupingConfig,
        d: Int, at: Int
    ) -> NeighbourLinks? {
        let (gi, found) = ScopeGroups.search(g, in: groups.live)
        guard found, d > 0 else { return nil }
        let unit = Array(groups.centroids.storage[(gi * d)..<((gi + 1) * d)])
        // The pool: g's members, and each candidate's members nearest unit(g), ascending by id;
        // `owner`: 0 for g's own, i + 1 for the i-th candidate.
        let own = state.groups[g]!.memberIDs.filter { occurrences.index(forKey: $0) != nil }
        let candidates = ranking.top
        var entries: [(id: Int64, owner: Int)] = own.map { ($0, 0) }
        for (c, h) in candidates.enumerated() {
            var nearest = TopCandidates(k: config.linkPool, scale: config.scoreScale)
            unit.withUnsafeBufferPointer { u in
                for m in state.groups[h]!.members.prefix(max(0, config.linkRows)) {
                    guard let i = occurrences.index(forKey: m.occurrenceID) else { continue }
                    let s = occurrences.values[i].vector.withUnsafeBufferPointer { Vectors.dot($0.baseAddress!, u.baseAddress!, count: d) }
                    if nearest.admits(s) { nearest.offer(m.occurrenceID, config.quantise(s)) }
                }
            }
            for n in nearest.best { entries.append((n.id, c + 1)) }
        }
        entries.sort { $0.id < $1.id }
        let poolIDs = entries.map(\.id), owners = entries.map(\.owner)
        let rows = Array(own.prefix(max(0, config.linkRows)))
        let poolVectors = Self.rows(poolIDs, occurrences, d: d)
        let tally = Self.tally(rows, poolIDs: poolIDs, owners: owners, poolVectors: poolVectors, candidates: candidates.count,
                               occurrences: occurrences, config: config, d: d)
        var counts: [Int64: Int] = [:]
        for (c, h) in candidates.enumerated() where tally[c + 1] > 0 { counts[h] = tally[c + 1] }
        return NeighbourLinks(counts: counts, rows: rows.count, top: ranking.top, kth: ranking.kth, at: at)
    }

    /// For each owner (0: the group's own), how many of the rows' `linkNeighbours` nearest in the
    /// pool (quantised similarity, ties to the lowest id, the row itself excluded) it holds.
    static func tally(
        _ rows: [Int64], poolIDs: [Int64], owners: [Int], poolVectors: Matrix, candidates: Int,
        occurrences: [Int64: Occurrence], config: GroupingConfig, d: Int
    ) -> [Int] {
        var tally = [Int](repeating: 0, count: candidates + 1)
        let block = max(1, config.blockSize), n = poolIDs.count
        for start in stride(from: 0, to: rows.count, by: block) {
            let ids = Array(rows[start..<min(rows.count, start + block)])
            let sims = Self.rows(ids, occurrences, d: d).timesTransposed(poolVectors)
            for (r, id) in ids.enumerated() {
                var nearest = TopCandidates(k: config.linkNeighbours, scale: config.scoreScale)
                sims.storage.withUnsafeBufferPointer { s in
                    poolIDs.withUnsafeBufferPointer { p in
                        let row = s.baseAddress! + r * n
                        for j in 0..<n where nearest.admits(row[j]) && p[j] != id {
                            nearest.offer(Int64(j), config.quantise(row[j]))
                        }
                    }
                }
                for c in nearest.best { tally[owners[Int(c.id)]] += 1 }
            }
        }
        return tally
    }

    /// A group's top-K candidates by centroid, as `rank` found them.
    struct Ranking {
        let top: [Int64]
        let kth: Int?
        /// The number of combinations the sweep had made when ranked or last found to hold.
        var at: Int
    }

    /// The vectors of `ids` as the rows of one matrix.
    static func rows(_ ids: [Int64], _ occurrences: [Int64: Occurrence], d: Int) -> Matrix {
        var m = Matrix(rows: ids.count, cols: d)
        m.storage.withUnsafeMutableBufferPointer { out in
            for (r, id) in ids.enumerated() {
                occurrences[id]!.vector.withUnsafeBufferPointer { v in
                    (out.baseAddress! + r * d).update(from: v.baseAddress!, count: min(d, v.count))
                }
            }
        }
        return m
    }

    /// The links counted in one combination sweep, and the combinations made since, which tell
    /// whether a group's links still hold.
    struct Cache {
        var entries: [Int64: NeighbourLinks] = [:]
        var rankings: [Int64: Ranking] = [:]
        /// The members of the scope's groups when the sweep began (N of the modularity gain).
        var grouped = 0
        /// (survivor, absorbed, the survivor's new unit centroid) of each combination, in order.
        private(set) var combinations: [(old: Int64, young: Int64, unit: [Float]?)] = []

        mutating func combined(old: Int64, young: Int64, unit: [Float]?) {
            combinations.append((old, young, unit))
        }

        /// True when no combination since `l` was counted touched `g` or one of its candidates, and
        /// no survivor's new centroid comes within reach of its K-th candidate: then its pool, and
        /// so its links, are the same. `centroid`: g's unit centroid (asked for at most once).
        func holds(_ l: NeighbourLinks, _ g: Int64, centroid: () -> [Float]?, config: GroupingConfig) -> Bool {
            holds(top: l.top, kth: l.kth, since: l.at, g, centroid: centroid, config: config)
        }

        /// The same for a ranking: no combination since touched `g` or its candidates, and no
        /// survivor's new centroid reaches its K-th.
        func holds(top: [Int64], kth: Int?, since at: Int, _ g: Int64, centroid: () -> [Float]?, config: GroupingConfig) -> Bool {
            var row: [Float]?
            for c in combinations[at...] {
                if c.old == g || c.young == g || top.contains(c.old) || top.contains(c.young) { return false }
                guard let kth, let unit = c.unit else { return false }
                if row == nil { row = centroid() }
                guard let r = row, config.quantise(Vectors.dot(r, unit)) < kth else { return false }
            }
            return true
        }
    }
}
