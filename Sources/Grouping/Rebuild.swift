/// Full rebuild: an explicit operation that regroups every automatic membership from scratch.
extension PatternEngine {
    /// Keeps user-decided memberships (pinned, moved) and pins from `constraints` in their groups,
    /// sends every other occurrence to pending, and refreshes. New groups then take the id of the
    /// emptied old group they overlap most (greedy by (−overlap, old id, new id)); the rest keep
    /// fresh ids from the counter. Ids are never reused; corrections keep applying.
    public static func rebuild(
        state: PatternState, occurrences: [Int64: Occurrence], constraints: Constraints,
        config: GroupingConfig = GroupingConfig(), isCancelled: () -> Bool = { false },
        progress: (Double) -> Void = { _ in }, judge: Judge? = nil
    ) throws -> RefreshOutcome {
        let old = state
        var base = state
        base.pending = [:]
        base.checked = [:]
        for gid in base.groups.keys {
            base.groups[gid]!.members.removeAll { !$0.source.isUserDecided || !occurrences.has($0.occurrenceID) }
        }
        // Pins whose membership is missing are re-established.
        for (o, g) in constraints.pins.sorted(by: { $0.key < $1.key }) {
            guard base.groups[g] != nil, let occ = occurrences[o], occ.scope == base.groups[g]!.scope else { continue }
            for gid in base.groups.keys { base.groups[gid]!.members.removeAll { $0.occurrenceID == o } }
            let clash = base.groups[g]!.members.contains { occurrences.recordOf($0.occurrenceID) == occ.recordID }
            if clash { continue }
            base.groups[g]!.members.append(Membership(occurrenceID: o, groupID: g, source: .pinned))
            base.groups[g]!.members.sort { $0.occurrenceID < $1.occurrenceID }
        }
        var ws = Workspace(state: base, occurrences: occurrences, constraints: constraints, config: config)
        ws.evidence = SharedElementJudge.make(config: config, occurrences: occurrences)
        ws.judge = SharedElementJudge.compose(ws.evidence, outer: judge)
        ws.hasOuterJudge = judge != nil
        ws.outerJudge = judge
        ws.pendingReplaced = true
        try ws.checkDimensions()
        for gid in ws.state.groups.keys.sorted() { ws.settle(gid) }
        ws.reconcile()
        for id in ws.state.pending.keys { ws.state.pending[id] = PendingMark(scope: ws.state.pending[id]!.scope) }
        let scopes = Set(ws.state.pending.keys.compactMap { occurrences[$0]?.scope }).sorted()
        for (i, scope) in scopes.enumerated() {
            try ws.run(scope, isCancelled: isCancelled)
            progress(Double(i + 1) / Double(scopes.count))
        }
        if judge != nil { ws.leaveAwaitingFresh() }
        ws.adoptOldIDs(from: old)
        ws.finishRebuild(comparedWith: old)
        ws.state.settledAt = ws.unsettled ? nil : ws.state.groupsVersion
        return ws.outcome
    }
}

extension Workspace {
    /// Renames groups created in this call to the emptied old group they share most members with.
    mutating func adoptOldIDs(from old: PatternState) {
        let emptied = state.groups.keys.filter {
            !createdGroups.contains($0) && state.groups[$0]!.members.isEmpty && !(old.groups[$0]?.members.isEmpty ?? true)
        }
        var overlaps: [(overlap: Int, old: Int64, new: Int64)] = []
        for o in emptied {
            let was = Set(old.groups[o]!.memberIDs)
            for n in createdGroups {
                let k = state.groups[n]!.members.filter { was.contains($0.occurrenceID) }.count
                if k > 0 { overlaps.append((k, o, n)) }
            }
        }
        overlaps.sort { ($0.overlap, -$0.old, -$0.new) > ($1.overlap, -$1.old, -$1.new) }
        var usedOld = Set<Int64>(), usedNew = Set<Int64>()
        for (_, o, n) in overlaps where !usedOld.contains(o) && !usedNew.contains(n) {
            usedOld.insert(o)
            usedNew.insert(n)
            var g = state.groups.removeValue(forKey: n)!
            derived.snapshots = [:]
            let previous = state.groups[o]!
            g.id = o
            g.members = g.members.map { Membership(occurrenceID: $0.occurrenceID, groupID: o, source: $0.source) }
            g.label = previous.label
            g.labelVersion = previous.labelVersion
            g.version = previous.version
            state.groups[o] = g
            // (Group `o` now has another group's medoid: no certificate may count on it as before.)
            medoidKept[n] = nil
            medoidKept[o] = .max
            for m in g.members { groupOf[m.occurrenceID] = o }
            createdGroups.remove(n)
            changedGroups.remove(n)
            changedGroups.insert(o)
        }
    }

    /// Versions and labels after a rebuild: a group whose member set differs from before gets a
    /// new version; one that lost a member loses its client label.
    mutating func finishRebuild(comparedWith old: PatternState) {
        for gid in state.groups.keys.sorted() {
            guard let before = old.groups[gid] else { continue }
            let was = Set(before.memberIDs), now = Set(state.groups[gid]!.memberIDs)
            if was == now {
                state.groups[gid]!.version = before.version
                state.groups[gid]!.label = before.label
                state.groups[gid]!.labelVersion = before.labelVersion
                state.groups[gid]!.changedAt = before.changedAt
                changedGroups.remove(gid)
                continue
            }
            state.groups[gid]!.version = before.version + 1
            if !was.isSubset(of: now) {
                state.groups[gid]!.label = nil
                state.groups[gid]!.labelVersion = nil
            }
            changedGroups.insert(gid)
        }
    }
}
