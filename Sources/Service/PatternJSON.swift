import Grouping
import KindredCore
import Storage

/// Wire shapes of pattern results.
enum PatternJSON {
    static func fraction(_ f: Fraction) -> JSONValue {
        ["records": .from(f.count), "eligible": .from(f.denominator)]
    }

    /// A finding; with `evidenceLimit`, the first that many evidence items and how many more there are.
    static func finding(_ f: Finding, labelDescription: String?, evidenceLimit: Int? = nil) -> JSONValue {
        let shown = evidenceLimit.map { Array(f.evidence.prefix($0)) } ?? f.evidence
        var o: JSONObject = [
            "groupId": .int(f.groupID), "version": .from(f.groupVersion), "kind": .string(f.kind.rawValue),
            "category": .string(f.category), "description": .string(f.label.description), "keywords": .from(f.label.keywords),
            "generatedLabel": .string(f.label.text), "records": .from(f.fraction.count), "eligible": .from(f.fraction.denominator),
            "summary": .string(f.summary),
            "moreEvidence": .from(f.evidence.count - shown.count),
            "evidence": .array(shown.map { e in
                ["recordId": .string(e.recordID), "revision": .from(e.recordRevision), "occurrenceId": .int(e.occurrenceID),
                 "excerpt": .string(e.excerpt), "date": .from(e.date)]
            }),
        ]
        if let label = f.clientLabel {
            o["label"] = .string(label)
            if let labelDescription { o["labelDescription"] = .string(labelDescription) }
        }
        if let c = f.comparison {
            var cmp: JSONObject = ["current": fraction(c.current), "previous": fraction(c.previous), "suppressed": .bool(c.suppressed)]
            if let t = c.trend { cmp["trend"] = .string(t.rawValue) }
            o["comparison"] = .object(cmp)
        }
        return .object(o)
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

    static func group(_ g: Group, members: [Int64: StoredOccurrence], label: GeneratedLabel?, labelDescription: String?) -> JSONValue {
        let list: [JSONValue] = g.members.map { m in
            let (source, score) = source(m.source)
            var o: JSONObject = ["occurrenceId": .int(m.occurrenceID), "source": .string(source)]
            if let score { o["score"] = .from(score) }
            if let occ = members[m.occurrenceID] {
                o["recordId"] = .string(occ.recordID)
                o["revision"] = .int(occ.recordRevision)
                o["description"] = .string(occ.description)
                o["excerpt"] = .string(occ.excerpt)
                o["date"] = .from(occ.recordDate)
            }
            o["medoid"] = .bool(g.medoid == m.occurrenceID)
            o["exemplar"] = .bool(g.exemplars.contains(m.occurrenceID))
            return .object(o)
        }
        let valid = g.label != nil && g.labelVersion == g.version
        var o: JSONObject = [
            "groupId": .int(g.id), "category": .string(g.category), "state": .string(g.state.rawValue), "version": .from(g.version),
            "label": valid ? .from(g.label) : .null, "description": .from(label?.description), "keywords": .from(label?.keywords ?? []),
            "records": .from(Set(g.members.compactMap { members[$0.occurrenceID]?.recordID }).count),
            "medoid": g.medoid.map { .int($0) } ?? .null, "exemplars": .array(g.exemplars.map { .int($0) }),
            "members": .array(list),
        ]
        if valid, let labelDescription { o["labelDescription"] = .string(labelDescription) }
        if let into = g.mergedInto { o["mergedInto"] = .int(into) }
        return .object(o)
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

    static func correction(_ c: Correction, undone: Bool) -> JSONValue {
        var o: JSONObject = ["correctionId": .int(c.id), "createdAt": .string(c.createdAt), "undone": .bool(undone), "note": .from(c.note)]
        switch c.kind {
        case let .dismiss(occ, g):
            o["kind"] = "dismiss"; o["groupId"] = .int(g); o["occurrenceId"] = .int(occ)
        case let .split(g, out):
            o["kind"] = "split"; o["groupId"] = .int(g); o["moveOut"] = .array(out.map { .int($0) })
        case let .merge(into, from):
            o["kind"] = "merge"; o["groupId"] = .int(into); o["fromGroupId"] = .int(from)
        case let .pin(occ, g):
            o["kind"] = "pin"; o["groupId"] = .int(g); o["occurrenceId"] = .int(occ)
        case let .exclude(occ, g):
            o["kind"] = "exclude"; o["groupId"] = .int(g); o["occurrenceId"] = .int(occ)
        }
        o["separated"] = .array(c.separated.map { .from([$0.a, $0.b]) })
        o["joined"] = .from(c.joined)
        return .object(o)
    }
}
