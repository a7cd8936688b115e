import Grouping
import KindredCore
import Storage
import KindredProtocol

/// Pattern results as the protocol gives them.
enum PatternJSON {
    static func count(_ f: Fraction) -> PatternsFindings.Result.Count {
        .init(records: f.count, eligible: f.denominator)
    }

    /// A finding; with `evidenceLimit`, the first that many evidence items and how many more there are.
    static func finding(_ f: Finding, labelDescription: String?, evidenceLimit: Int? = nil) -> PatternsFindings.Result.Finding {
        let shown = evidenceLimit.map { Array(f.evidence.prefix($0)) } ?? f.evidence
        return PatternsFindings.Result.Finding(
            groupId: Int(f.groupID), version: f.groupVersion, kind: f.kind.rawValue, category: f.category, description: f.label.description,
            keywords: f.label.keywords, generatedLabel: f.label.text, records: f.fraction.count, eligible: f.fraction.denominator,
            summary: f.summary, moreEvidence: f.evidence.count - shown.count,
            evidence: shown.map { e in
                .init(recordId: e.recordID, revision: Int(e.recordRevision), occurrenceId: Int(e.occurrenceID), excerpt: e.excerpt, date: e.date)
            },
            label: f.clientLabel, labelDescription: f.clientLabel == nil ? nil : labelDescription,
            comparison: f.comparison.map { c in
                .init(current: count(c.current), previous: count(c.previous), suppressed: c.suppressed, trend: c.trend?.rawValue)
            })
    }

    static func source(_ s: MembershipSource) -> (String, Int?) {
        switch s {
        case .automatic(let score): return ("automatic", score)
        case .pinned: return ("pinned", nil)
        case .moved: return ("moved", nil)
        case .combined: return ("combined", nil)
        case .judged(let score): return ("judged", score)
        }
    }

    static func group(_ g: Group, members: [Int64: StoredOccurrence], label: GeneratedLabel?, labelDescription: String?,
                      sharedElement: String?) -> PatternsGroup.Result.Group {
        let list = g.members.map { m in
            let (source, score) = source(m.source)
            var out = PatternsGroup.Result.Member(occurrenceId: Int(m.occurrenceID), source: source, score: score,
                                                  medoid: g.medoid == m.occurrenceID, exemplar: g.exemplars.contains(m.occurrenceID))
            if let occ = members[m.occurrenceID] {
                out.recordId = occ.recordID
                out.revision = Int(occ.recordRevision)
                out.description = occ.description
                out.excerpt = occ.excerpt
                out.date = occ.recordDate
            }
            return out
        }
        let valid = g.label != nil && g.labelVersion == g.version
        return PatternsGroup.Result.Group(
            groupId: Int(g.id), category: g.category, state: g.state.rawValue, version: g.version, label: valid ? g.label : nil,
            description: label?.description, keywords: label?.keywords ?? [],
            records: Set(g.members.compactMap { members[$0.occurrenceID]?.recordID }).count,
            medoid: g.medoid.map { Int($0) }, exemplars: g.exemplars.map { Int($0) }, members: list,
            labelDescription: valid ? labelDescription : nil, mergedInto: g.mergedInto.map { Int($0) }, sharedElement: sharedElement)
    }

    /// Groups a correction names.
    static func groups(of kind: CorrectionKind) -> [Int64] {
        switch kind {
        case let .dismiss(_, g), let .split(g, _), let .pin(_, g), let .exclude(_, g): return [g]
        case let .merge(into, from): return [into, from]
        }
    }

    static func kindName(_ kind: CorrectionKind) -> String {
        switch kind {
        case .dismiss: "dismiss"
        case .split: "split"
        case .merge: "merge"
        case .pin: "pin"
        case .exclude: "exclude"
        }
    }

    static func correction(_ c: Correction, undone: Bool) -> CorrectionRecord {
        var o = CorrectionRecord(correctionId: Int(c.id), createdAt: c.createdAt, undone: undone, note: c.note, kind: kindName(c.kind), groupId: 0,
                                 separated: c.separated.map { [$0.a, $0.b] }, joined: c.joined)
        switch c.kind {
        case let .dismiss(occ, g), let .pin(occ, g), let .exclude(occ, g):
            o.groupId = Int(g); o.occurrenceId = Int(occ)
        case let .split(g, out):
            o.groupId = Int(g); o.moveOut = out.map { Int($0) }
        case let .merge(into, from):
            o.groupId = Int(into); o.fromGroupId = Int(from)
        }
        return o
    }
}
