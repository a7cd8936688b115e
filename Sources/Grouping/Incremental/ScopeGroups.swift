import LinearAlgebra

/// The groups of one scope as assignment ranks them: every group id ascending with its
/// `changedAt`, and the live ones (with a representative) ascending with their unit centroids as
/// the rows of one matrix.
/// Derived from a state; `applying` brings it up to date for a few changed groups without
/// looking at the others.
struct ScopeGroups {
    private(set) var ids: [Int64] = []
    private(set) var changedAt: [Int] = []
    /// The member count of each group of `ids`, and their sum.
    private(set) var sizes: [Int] = []
    private(set) var grouped = 0
    private(set) var live: [Int64] = []
    private(set) var centroids: Matrix
    /// The largest `changedAt`.
    private(set) var lastChange = 0

    /// Built from every group of `scope`.
    init(_ scope: Scope, _ state: PatternState, _ occurrences: [Int64: Occurrence], d: Int) {
        centroids = Matrix(rows: 0, cols: d)
        let values = state.groups.values
        for i in values.indices where values[i].category == scope.category && values[i].owner == scope.owner {
            ids.append(values[i].id)
        }
        ids.sort()
        changedAt.reserveCapacity(ids.count)
        for gid in ids {
            let g = state.groups[gid]!
            changedAt.append(g.changedAt)
            sizes.append(g.members.count)
            grouped += g.members.count
            lastChange = max(lastChange, g.changedAt)
            if g.medoid != nil {
                live.append(gid)
                centroids.appendRow(Self.unit(g, occurrences, d: d))
            }
        }
    }

    /// unit(Σ members): the stored centroid, or (states written before it was kept) the sum.
    static func unit(_ g: Group, _ occurrences: [Int64: Occurrence], d: Int) -> [Float] {
        g.centroid(dimension: d) ?? Vectors.normalized(GroupGeometry.sum(g.memberIDs, occurrences))
    }

    /// Up to date for `changed` (groups of this scope, created ones included), as they are in `state`.
    mutating func apply(_ changed: [Int64], _ state: PatternState, _ occurrences: [Int64: Occurrence], d: Int) {
        for gid in Set(changed).sorted() {
            guard let g = state.groups[gid] else { continue }
            let (i, found) = Self.search(gid, in: ids)
            if found {
                changedAt[i] = g.changedAt
                grouped += g.members.count - sizes[i]
                sizes[i] = g.members.count
            } else {
                ids.insert(gid, at: i)
                changedAt.insert(g.changedAt, at: i)
                sizes.insert(g.members.count, at: i)
                grouped += g.members.count
            }
            lastChange = max(lastChange, g.changedAt)
            let (j, isLive) = Self.search(gid, in: live)
            switch (isLive, g.medoid != nil) {
            case (true, true): centroids.setRow(j, Self.unit(g, occurrences, d: d))
            case (false, true): live.insert(gid, at: j); centroids.insertRow(Self.unit(g, occurrences, d: d), at: j)
            case (true, false): live.remove(at: j); centroids.removeRow(j)
            case (false, false): break
            }
        }
    }

    /// Where `x` is or would go in the ascending `xs`.
    static func search(_ x: Int64, in xs: [Int64]) -> (Int, Bool) {
        let i = xs.insertionPoint(of: x)
        return (i, i < xs.count && xs[i] == x)
    }
}
