import LinearAlgebra

/// A join never pushes a member out (docs/grouping-design.md, "Stability").
///
/// An occurrence joining a group moves the group's medoid when it shifts the sum of the members
/// far enough. The group then settles against the new medoid, and an automatic member that falls
/// below τ_stay of it would leave for pending: co-members that were together would be pulled
/// apart by data arriving, which the engine promises not to do. So a join is made only when, with
/// the newcomer added, the newcomer and every automatic member stay at or above τ_stay of the
/// medoid the group would then have; otherwise the occurrence stays pending. (Combining by
/// similarity asks the same of the combined group: `staysTogether`; combining by neighbours makes
/// the members `.combined` instead.) Pinned, moved and combined members never leave automatically
/// and are not asked.
extension Workspace {
    /// True when `x` joining `gid` leaves the newcomer and every automatic member of the group at or
    /// above τ_stay of the medoid the group would then have.
    mutating func joinKeepsMembers(_ x: Int64, _ gid: Int64) -> Bool {
        let g = state.groups[gid]!
        let stay = stayThreshold(g.scope)
        var ids = g.memberIDs
        let at = ids.firstIndex { $0 > x } ?? ids.count
        ids.insert(x, at: at)
        let sum = GroupGeometry.sum(ids, occurrences)
        guard let medoid = GroupGeometry.medoid(ids, sum: sum, occurrences, config: config) else { return false }
        let mv = occurrences.vectorOf(medoid)!
        guard config.quantise(Vectors.dot(occurrences.vectorOf(x)!, mv)) >= stay else { return false }
        // The medoid stays where it was: nothing the group held changes its distance to it.
        if medoid == g.medoid { return true }
        for m in g.members where m.source.staysChecked {
            if config.quantise(Vectors.dot(occurrences.vectorOf(m.occurrenceID)!, mv)) < stay { return false }
        }
        return true
    }
}
