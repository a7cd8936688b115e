import Grouping
import KindredTestSupport
import LinearAlgebra

/// Builders for hand-made and synthetic occurrences.
enum Fixture {
    static let d = 16

    /// Unit vector from explicit leading components (rest zero), normalised.
    static func vec(_ xs: Float...) -> [Float] {
        var v = [Float](repeating: 0, count: d)
        for (i, x) in xs.enumerated() { v[i] = x }
        return Vectors.normalized(v)
    }

    static func occ(
        _ id: Int64, record: String, _ vector: [Float], category: String = "person",
        tags: [String] = [], description: String? = nil, date: String? = "2025-03-01", owner: String = "owner"
    ) -> Occurrence {
        Occurrence(id: id, owner: owner, category: category, description: description ?? "item \(id)",
                   excerpt: "excerpt \(id)", recordID: record, recordRevision: 1, recordDate: date,
                   tags: tags, vector: vector)
    }

    static func index(_ xs: [Occurrence]) -> [Int64: Occurrence] {
        Dictionary(uniqueKeysWithValues: xs.map { ($0.id, $0) })
    }

    static func refresh(
        _ state: PatternState, _ occurrences: [Int64: Occurrence], _ corrections: [Correction] = [],
        config: GroupingConfig = GroupingConfig()
    ) throws -> RefreshOutcome {
        try PatternEngine.refresh(
            state: state, occurrences: occurrences,
            constraints: Constraints.derive(from: corrections, occurrences: occurrences), config: config)
    }

    /// Two pairs of close occurrences from four records (1, 2 and 3, 4), refreshed into two groups.
    static func twoPairs() throws -> (occurrences: [Int64: Occurrence], state: PatternState) {
        let occ = index([
            occ(1, record: "a", vec(1, 0.1)), occ(2, record: "b", vec(1, 0.12)),
            occ(3, record: "c", vec(0.2, 1)), occ(4, record: "d", vec(0.2, 1, 0.1)),
        ])
        return (occ, try refresh(PatternState(), occ).state)
    }

    /// Two close occurrences (1, 2) grouped and a far one (3) pinned into their group.
    static func farMemberPinned() throws -> (
        occurrences: [Int64: Occurrence], group: Int64, pin: (correction: Correction, constraints: Constraints, outcome: RefreshOutcome)
    ) {
        let occ = index([
            occ(1, record: "a", vec(1, 0.1)), occ(2, record: "b", vec(1, 0.12)),
            occ(3, record: "c", vec(0, 1)),
        ])
        let s = try refresh(PatternState(), occ).state
        guard let g = s.sortedGroups.first else { throw GroupingError.unknownGroup(0) }
        let pin = try PatternEngine.correct(CorrectionRequest(kind: .pin(occurrence: 3, group: g.id), createdAt: "t"),
                                            id: 1, state: s, occurrences: occ, existing: [])
        return (occ, g.id, pin)
    }

    /// Member sets of the groups (by group id), for comparisons.
    static func memberSets(_ s: PatternState) -> [Int64: Set<Int64>] {
        s.groups.mapValues { Set($0.memberIDs) }
    }

    static func synthetic(seed: UInt64, records: Int = 60, firstID: Int64 = 1, firstRecord: Int = 0) -> [Occurrence] {
        SyntheticData.history(seed: seed, records: records, perRecord: 2, clusters: 6, dimension: 48,
                              spread: 0.5, noiseShare: 0.2, firstID: firstID, firstRecord: firstRecord)
    }
}

/// Structural invariants every state must satisfy.
enum Invariants {
    /// Returns a list of violations (empty when the state is sound).
    static func check(_ s: PatternState, _ occurrences: [Int64: Occurrence]) -> [String] {
        var problems: [String] = []
        var seen = Set<Int64>()
        for g in s.sortedGroups {
            var records = Set<String>()
            for m in g.members {
                if m.groupID != g.id { problems.append("membership \(m.occurrenceID) names group \(m.groupID), is in \(g.id)") }
                if !seen.insert(m.occurrenceID).inserted { problems.append("occurrence \(m.occurrenceID) in two groups") }
                guard let o = occurrences[m.occurrenceID] else { problems.append("group \(g.id) holds gone \(m.occurrenceID)"); continue }
                if o.scope != g.scope { problems.append("occurrence \(o.id) outside group \(g.id)'s scope") }
                if !records.insert(o.recordID).inserted { problems.append("group \(g.id) holds record \(o.recordID) twice") }
            }
            if g.memberIDs != g.memberIDs.sorted() { problems.append("group \(g.id) members not canonical") }
            if g.state == .active && records.count < 2 { problems.append("group \(g.id) active with \(records.count) records") }
            if g.state == .dormant && records.count >= 2 { problems.append("group \(g.id) dormant with \(records.count) records") }
            if let m = g.medoid, !g.memberIDs.contains(m) { problems.append("group \(g.id) medoid not a member") }
            if g.id >= s.nextGroupID { problems.append("group id \(g.id) not below counter \(s.nextGroupID)") }
        }
        for p in s.pending.keys where seen.contains(p) { problems.append("occurrence \(p) both pending and member") }
        for id in occurrences.keys where !seen.contains(id) && s.pending[id] == nil {
            problems.append("occurrence \(id) neither member nor pending")
        }
        return problems
    }
}
