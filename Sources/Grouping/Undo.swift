import LinearAlgebra

/// Undoing a correction (docs/patterns.md, `patterns/undoCorrection`): it stops constraining later refreshes, and
/// what it moved goes back where it came from as far as the current state allows.
extension PatternEngine {
    /// Reverses what `correction` did to the memberships:
    /// - dismiss: the occurrence, if still pending, is evaluated afresh by the next refresh;
    /// - split: members it moved out and that are still in the group it made go back to the
    ///   split group;
    /// - merge: members it moved in from the other group and that are still there go back;
    /// - pin: the membership, if still pinned, becomes an ordinary one (the stay check applies).
    /// A member goes back only if no correction still in force (`constraints`, without this one)
    /// keeps its record apart from the records there; otherwise it becomes pending. Returned
    /// members are ordinary (automatic) again, scored against the group's new representative.
    public static func undo(
        _ correction: Correction, state: PatternState, occurrences: [Int64: Occurrence],
        constraints: Constraints, config: GroupingConfig = GroupingConfig()
    ) -> RefreshOutcome {
        var ws = Workspace(state: state, occurrences: occurrences, constraints: constraints, config: config)
        switch correction.kind {
        case let .dismiss(o, _), let .exclude(o, _):
            if ws.state.pending[o] != nil {
                ws.state.pending[o] = PendingMark(scope: ws.state.pending[o]!.scope)
                ws.pendingChanged.insert(o)
                // A fresh mark without a group change: the next refresh must look at every scope.
                ws.state.settledAt = nil
            }
        case let .split(g, moveOut):
            let moved = moveOut.filter { o in
                guard let now = ws.groupOf[o], now != g else { return false }
                return ws.state.groups[now]?.membership(of: o)?.source == .moved
            }
            ws.moveBack(moved, to: g)
        case let .merge(into, from):
            let moved = correction.occurrences.filter { o in
                ws.groupOf[o] == into && ws.state.groups[into]?.membership(of: o)?.source == .moved
            }
            ws.moveBack(moved, to: from)
        case let .pin(o, g):
            if let i = ws.state.groups[g]?.members.firstIndex(where: { $0.occurrenceID == o }),
               ws.state.groups[g]!.members[i].source == .pinned {
                ws.state.groups[g]!.members[i].source = .automatic(score: ws.score(o, in: g))
                ws.touch(g)
                ws.settle(g)
            }
        }
        return ws.outcome
    }
}

extension Workspace {
    /// Moves `ids` (each in some other group) into group `gid` as automatic members, or to pending
    /// when a cannot-link, a same-record member or a record of another kind than the group's
    /// representative's (`KindRule.swift`) forbids it; settles every group involved.
    mutating func moveBack(_ ids: [Int64], to gid: Int64) {
        guard state.groups[gid] != nil else {
            var left = Set<Int64>()
            for o in ids.sorted() { if let from = detach(o) { left.insert(from) }; makePending(o) }
            for g in left.sorted() { settle(g) }
            return
        }
        var left = Set<Int64>()
        var records = Set(state.groups[gid]!.members.compactMap { occurrences.recordOf($0.occurrenceID) })
        // (A group without a representative takes the kind of the first member moved back.)
        var kind = representativeKind(gid)
        for o in ids.sorted() {
            guard let from = detach(o) else { continue }
            left.insert(from)
            guard let r = occurrences.recordOf(o), !records.contains(r), !constraints.conflicts(r, with: records),
                  kind == nil || occurrences[o]?.recordKind == kind else {
                makePending(o)
                continue
            }
            kind = kind ?? occurrences[o]?.recordKind
            attach(o, to: gid, source: .automatic(score: 0))
            records.insert(r)
        }
        for g in left.sorted() { settle(g) }
        settle(gid)
        // Scores against the representative the group has now.
        for i in state.groups[gid]!.members.indices {
            let m = state.groups[gid]!.members[i]
            guard ids.contains(m.occurrenceID), case .automatic = m.source else { continue }
            state.groups[gid]!.members[i].source = .automatic(score: score(m.occurrenceID, in: gid))
        }
    }

    /// Quantised similarity of occurrence `o` to group `gid`'s representative (0 without one).
    func score(_ o: Int64, in gid: Int64) -> Int {
        guard let m = state.groups[gid]?.medoid, let mv = occurrences.vectorOf(m), let v = occurrences.vectorOf(o) else { return 0 }
        return config.quantise(Vectors.dot(v, mv))
    }
}
