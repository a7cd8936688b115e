/// Corrections: resolve the records involved, refuse contradictions, apply to the named groups only.
extension PatternEngine {
    /// Resolves `request` against the current state into a storable `Correction` (it records the
    /// record pairs it keeps apart and the records it keeps together) and validates it against
    /// `constraints`. Throws on unknown ids, on requests that make no sense for the current
    /// membership, and on must-link/cannot-link contradictions (naming both records).
    public static func prepare(
        _ request: CorrectionRequest, id: Int64, state: PatternState,
        occurrences: [Int64: Occurrence], constraints: Constraints
    ) throws -> Correction {
        func group(_ g: Int64) throws -> Group {
            guard let group = state.groups[g] else { throw GroupingError.unknownGroup(g) }
            return group
        }
        func occurrence(_ o: Int64) throws -> Occurrence {
            guard let occ = occurrences[o] else { throw GroupingError.unknownOccurrence(o) }
            return occ
        }
        func records(_ g: Group) -> [String] {
            Set(g.members.compactMap { occurrences.recordOf($0.occurrenceID) }).sorted()
        }
        func pairs(_ xs: [String], _ ys: [String]) -> [RecordPair] {
            Set(xs.flatMap { x in ys.filter { $0 != x }.map { RecordPair(x, $0) } }).sorted()
        }
        var c = Correction(id: id, kind: request.kind, note: request.note, createdAt: request.createdAt)
        switch request.kind {
        case let .dismiss(o, g):
            let grp = try group(g), occ = try occurrence(o)
            guard grp.membership(of: o) != nil else { throw GroupingError.notAMember(occurrence: o, group: g) }
            c.separated = pairs([occ.recordID], records(grp))
            c.occurrences = [o]
            c.records = [occ.recordID]
        case let .exclude(o, g):
            let grp = try group(g), occ = try occurrence(o)
            guard grp.membership(of: o) != nil else { throw GroupingError.notAMember(occurrence: o, group: g) }
            c.occurrences = [o]
            c.records = [occ.recordID]
        case let .split(g, moveOut):
            let grp = try group(g)
            let out = Set(moveOut)
            guard !out.isEmpty else { throw GroupingError.invalidCorrection("split of group \(g) moves nothing out") }
            for o in out.sorted() where grp.membership(of: o) == nil { throw GroupingError.notAMember(occurrence: o, group: g) }
            let keep = grp.memberIDs.filter { !out.contains($0) }
            guard !keep.isEmpty else { throw GroupingError.invalidCorrection("split of group \(g) keeps nothing") }
            let outRecords = try out.sorted().map { try occurrence($0).recordID }
            let keepRecords = keep.compactMap { occurrences.recordOf($0) }
            c.separated = pairs(outRecords, keepRecords)
            c.occurrences = out.sorted()
        case let .merge(into, from):
            let a = try group(into), b = try group(from)
            guard into != from else { throw GroupingError.invalidCorrection("group \(into) cannot be merged into itself") }
            guard a.scope == b.scope else { throw GroupingError.invalidCorrection("groups \(into) and \(from) are of different categories") }
            c.joined = Array(Set(records(a) + records(b))).sorted()
            c.occurrences = (a.memberIDs + b.memberIDs).sorted()
        case let .pin(o, g):
            let grp = try group(g), occ = try occurrence(o)
            guard grp.scope == occ.scope else { throw GroupingError.invalidCorrection("occurrence \(o) is not of group \(g)'s category") }
            if let other = grp.members.first(where: { $0.occurrenceID != o && occurrences.recordOf($0.occurrenceID) == occ.recordID }) {
                throw GroupingError.invalidCorrection(
                    "group \(g) already holds occurrence \(other.occurrenceID) of record \(occ.recordID)")
            }
            c.joined = Array(Set(records(grp) + [occ.recordID])).sorted()
            c.occurrences = [o]
        }
        try constraints.validate(c)
        return c
    }

    /// Applies a prepared correction. Only the named groups change; evicted occurrences become
    /// pending. `constraints` should already include `correction` (derive them again after storing it).
    public static func apply(
        _ correction: Correction, to state: PatternState, occurrences: [Int64: Occurrence],
        constraints: Constraints, config: GroupingConfig = GroupingConfig()
    ) throws -> RefreshOutcome {
        var ws = Workspace(state: state, occurrences: occurrences, constraints: constraints, config: config)
        switch correction.kind {
        case let .dismiss(o, g):
            guard ws.groupOf[o] == g else { throw GroupingError.notAMember(occurrence: o, group: g) }
            ws.detach(o)
            ws.makePending(o)
            ws.settle(g)
        case let .exclude(o, g):
            guard ws.groupOf[o] == g else { throw GroupingError.notAMember(occurrence: o, group: g) }
            // Every occurrence of the record leaves its group.
            let record = occurrences.recordOf(o)
            var left = Set<Int64>()
            let held = ws.groupOf.filter { occurrences.recordOf($0.key) == record }.map { (gid: $0.value, id: $0.key) }
            for (gid, id) in held.sorted(by: { ($0.gid, $0.id) < ($1.gid, $1.id) }) {
                ws.detach(id, from: gid)
                ws.makePending(id)
                left.insert(gid)
            }
            for gid in left.sorted() { ws.settle(gid) }
        case let .split(g, moveOut):
            guard let grp = state.groups[g] else { throw GroupingError.unknownGroup(g) }
            let out = Set(moveOut).filter { ws.groupOf[$0] == g }.sorted()
            for o in out { ws.detach(o) }
            // The moved-out members form a new group, except those cannot-linked to an earlier one
            // (in id order): a new group never holds a cannot-linked pair.
            var together: [Int64] = [], records = Set<String>()
            for o in out {
                guard let r = occurrences.recordOf(o), !constraints.conflicts(r, with: records) else { continue }
                together.append(o)
                records.insert(r)
            }
            if records.count >= 2 {
                let ng = ws.newGroup(grp.scope)
                for o in together { ws.attach(o, to: ng, source: .moved) }
                ws.settle(ng)
            } else {
                together = []
            }
            for o in out where !together.contains(o) { ws.makePending(o) }
            ws.settle(g)
        case let .merge(into, from):
            guard state.groups[into] != nil else { throw GroupingError.unknownGroup(into) }
            guard let src = state.groups[from] else { throw GroupingError.unknownGroup(from) }
            for m in src.members {
                ws.detach(m.occurrenceID)
                let rec = occurrences.recordOf(m.occurrenceID)
                let clash = ws.state.groups[into]!.members.contains { occurrences.recordOf($0.occurrenceID) == rec }
                if clash { ws.makePending(m.occurrenceID) } else { ws.attach(m.occurrenceID, to: into, source: .moved) }
            }
            ws.settle(from)
            ws.settle(into)
        case let .pin(o, g):
            guard state.groups[g] != nil else { throw GroupingError.unknownGroup(g) }
            if ws.groupOf[o] == g {
                let i = ws.state.groups[g]!.members.firstIndex { $0.occurrenceID == o }!
                ws.state.groups[g]!.members[i].source = .pinned
                ws.changedGroups.insert(g)
            } else {
                if let old = ws.detach(o) { ws.settle(old) }
                ws.attach(o, to: g, source: .pinned)
                ws.settle(g)
            }
        }
        return ws.outcome
    }

    /// Convenience: prepare, derive the new constraints and apply in one call. Store
    /// `correction` and the returned state.
    public static func correct(
        _ request: CorrectionRequest, id: Int64, state: PatternState, occurrences: [Int64: Occurrence],
        existing: [Correction], config: GroupingConfig = GroupingConfig()
    ) throws -> (correction: Correction, constraints: Constraints, outcome: RefreshOutcome) {
        let before = Constraints.derive(from: existing, occurrences: occurrences)
        let correction = try prepare(request, id: id, state: state, occurrences: occurrences, constraints: before)
        let after = Constraints.derive(from: existing + [correction], occurrences: occurrences)
        let outcome = try apply(correction, to: state, occurrences: occurrences, constraints: after, config: config)
        return (correction, after, outcome)
    }
}
