import Foundation
import Grouping
import KindredCore
import JSONRPC
import Storage

/// Pattern discovery methods: registration and in-process dispatch in one table.
extension KindredService {
    typealias PatternHandler = @Sendable (KindredService, JSONValue?, RequestContext) throws(ResponseError) -> JSONValue

    static let patternMethods: [(name: String, kind: MethodKind, handler: PatternHandler)] = [
        ("occurrences/put", .write, { s, p, c throws(ResponseError) in try s.putOccurrences(p, c) }),
        ("patterns/refresh", .write, { s, p, c throws(ResponseError) in try s.refreshPatterns(p, c, rebuild: false) }),
        ("patterns/rebuild", .write, { s, p, c throws(ResponseError) in try s.refreshPatterns(p, c, rebuild: true) }),
        ("patterns/findings", .read, { s, p, c throws(ResponseError) in try s.findings(p, c) }),
        ("patterns/group", .read, { s, p, _ throws(ResponseError) in try s.patternGroup(p) }),
        ("patterns/correct", .write, { s, p, _ throws(ResponseError) in try s.correct(p) }),
        ("patterns/corrections", .read, { s, p, _ throws(ResponseError) in try s.corrections(p) }),
        ("patterns/undoCorrection", .write, { s, p, _ throws(ResponseError) in try s.undoCorrection(p) }),
        ("patterns/setLabel", .write, { s, p, _ throws(ResponseError) in try s.setLabel(p) }),
    ]

    func registerPatternMethods(on server: Server) {
        for m in Self.patternMethods {
            let handler = m.handler
            server.register(m.name, kind: m.kind) { [self] p, ctx in try handler(self, p, ctx) }
        }
    }

    /// In-process dispatch of a pattern method; nil when `method` is not one.
    func patternCall(_ method: String, _ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue? {
        guard let m = Self.patternMethods.first(where: { $0.name == method }) else { return nil }
        return try m.handler(self, params, ctx)
    }

    // MARK: findings

    func period(_ p: Params, _ fromKey: String, _ toKey: String) throws(ResponseError) -> Period? {
        let from = try p.optionalDate(fromKey), to = try p.optionalDate(toKey)
        guard from != nil || to != nil else { return nil }
        let period = Period(from: from ?? "0000-01-01", to: to ?? "9999-12-31")
        guard period.from <= period.to else { throw p.fail(toKey, "must not be before \(fromKey)") }
        return period
    }

    func findings(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        let p = try Params(params)
        let owner = try owner(p)
        var query = FindingsQuery()
        query.period = try period(p, "from", "to")
        query.comparePeriod = try period(p, "compareFrom", "compareTo")
        query.category = try p.optionalString("category")
        query.includeRelated = try p.optionalBool("includeRelated") ?? true
        let config = patternConfig
        let version = indexVersion
        let (data, eligible) = try withPatternReader(owner: owner) { store in
            (try loadOwnerPatterns(store, owner: owner, withVectors: false),
             try store.analysedRecords(owner: owner, indexVersion: version, includePassages: config.passageOccurrences))
        }
        try ctx.checkCancelled()
        var eligibleRecords: [String: String?] = [:]
        for r in eligible { eligibleRecords[r.id] = .some(r.date) }
        let report = PatternEngine.findings(state: data.state, occurrences: data.occurrences, eligibleRecords: eligibleRecords,
                                            query: query, config: config.grouping)
        return [
            "eligibleRecords": .from(report.denominator),
            "insufficientHistory": .bool(report.insufficientHistory),
            "findings": .array(report.findings.map { PatternJSON.finding($0, labelDescription: data.labelDescriptions[$0.groupID]) }),
        ]
    }

    // MARK: groups

    func patternGroup(_ params: JSONValue?) throws(ResponseError) -> JSONValue {
        let p = try Params(params)
        let owner = try owner(p)
        let groupID = try p.int("groupId")
        let config = patternConfig
        return try withPatternReader(owner: owner) { store in
            let data = try loadOwnerPatterns(store, owner: owner, withVectors: false)
            guard let g = data.state.groups[groupID] else { throw ResponseError.notFound("group", id: String(groupID), owner: owner) }
            let members = Dictionary(uniqueKeysWithValues: try store.occurrences(owner: owner, ids: g.memberIDs).map { ($0.id, $0) })
            let labels = PatternEngine.generatedLabels(state: data.state, occurrences: data.occurrences, config: config.grouping)
            let corrections = try store.correctionRows(owner: owner).compactMap { row -> (CorrectionRow, Correction)? in
                guard let c = try? PatternCodec.decode(Correction.self, row.body), PatternJSON.groups(of: c.kind).contains(groupID) else { return nil }
                return (row, c)
            }
            return [
                "group": PatternJSON.group(g, members: members, label: labels[g.id], labelDescription: data.labelDescriptions[g.id]),
                "corrections": .array(corrections.map { PatternJSON.correction($0.1, undone: $0.0.undone) }),
            ]
        }
    }

    func setLabel(_ params: JSONValue?) throws(ResponseError) -> JSONValue {
        let p = try Params(params)
        let owner = try owner(p)
        let groupID = try p.int("groupId")
        let version = try p.int("version")
        guard p.object["label"] != nil else { throw p.fail("label", "is required (null clears the label)") }
        let label = try p.optionalString("label")
        if let label, label.isEmpty { throw p.fail("label", "must not be empty (null clears the label)") }
        if let label, label.utf8.count > 512 { throw p.fail("label", "must be at most 512 bytes") }
        let description = try p.optionalString("description")
        return try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                let (state, _, _) = try loadPatternState(store, owner: owner)
                let next = try PatternEngine.setLabel(state, groupID: groupID, version: Int(version), label: label)
                try store.saveGroupRow(try PatternCodec.groupRow(next.groups[groupID]!))
                try store.setGroupLabelDescription(owner: owner, id: groupID, description: label == nil ? nil : description)
                return ["ok": true, "groupId": .int(groupID), "version": .int(version), "label": .from(label)]
            }
        }
    }

    // MARK: corrections

    static func correctionRequest(_ p: Params) throws(ResponseError) -> CorrectionRequest {
        guard let c = try p.optionalObject("correction") else { throw p.fail("correction", "is required") }
        let known: Set<String> = ["kind", "groupId", "occurrenceId", "moveOut", "fromGroupId", "note"]
        if let unknown = c.object.keys.first(where: { !known.contains($0) }) { throw c.fail(unknown, "is not a correction field") }
        let group = try c.int("groupId")
        let note = try c.optionalString("note")
        if let note, note.utf8.count > 1000 { throw c.fail("note", "must be at most 1000 bytes") }
        let kind: CorrectionKind
        switch try c.string("kind") {
        case "dismiss": kind = .dismiss(occurrence: try c.int("occurrenceId"), group: group)
        case "pin": kind = .pin(occurrence: try c.int("occurrenceId"), group: group)
        case "merge": kind = .merge(into: group, from: try c.int("fromGroupId"))
        case "split":
            let items = try c.array("moveOut")
            var ids: [Int64] = []
            for (i, v) in items.enumerated() {
                guard case .int(let id) = v else { throw ResponseError.invalidParams(field: c.path("moveOut") + "[\(i)]", reason: "must be an occurrence id (integer)") }
                ids.append(id)
            }
            guard !ids.isEmpty else { throw c.fail("moveOut", "must name at least one occurrence") }
            kind = .split(group: group, moveOut: ids)
        default: throw c.fail("kind", "must be one of dismiss, split, merge, pin")
        }
        return CorrectionRequest(kind: kind, note: note, createdAt: ISO8601DateFormatter().string(from: Date()))
    }

    func correct(_ params: JSONValue?) throws(ResponseError) -> JSONValue {
        let p = try Params(params)
        let owner = try owner(p)
        let request = try Self.correctionRequest(p)
        let config = patternConfig.grouping
        return try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                let data = try loadOwnerPatterns(store, owner: owner, withVectors: true)
                let id = try store.nextCorrectionID()
                let (correction, _, outcome) = try PatternEngine.correct(request, id: id, state: data.state, occurrences: data.occurrences,
                                                                         existing: data.corrections, config: config)
                try store.insertCorrection(id: id, owner: owner, body: try PatternCodec.encode(correction), createdAt: correction.createdAt)
                try savePatternOutcome(store, owner: owner, outcome)
                return ["correctionId": .int(id), "affectedGroups": .array(outcome.changedGroups.map { .int($0) })]
            }
        }
    }

    func corrections(_ params: JSONValue?) throws(ResponseError) -> JSONValue {
        let p = try Params(params)
        let owner = try owner(p)
        let rows = try withPatternReader(owner: owner) { try $0.correctionRows(owner: owner) }
        var out: [JSONValue] = []
        for row in rows {
            guard let c = try? PatternCodec.decode(Correction.self, row.body) else { continue }
            out.append(PatternJSON.correction(c, undone: row.undone))
        }
        return ["corrections": .array(out)]
    }

    /// Undoes a correction: it stops constraining later refreshes (constraints are derived from the
    /// corrections still in force), and the engine moves back what it moved (`PatternEngine.undo`);
    /// an occurrence it sent to pending is evaluated afresh by the next refresh.
    func undoCorrection(_ params: JSONValue?) throws(ResponseError) -> JSONValue {
        let p = try Params(params)
        let owner = try owner(p)
        let id = try p.int("correctionId")
        return try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                guard let row = try store.correctionRows(owner: owner).first(where: { $0.id == id && !$0.undone }),
                      try store.undoCorrection(owner: owner, id: id)
                else { throw ResponseError.notFound("correction", id: String(id), owner: owner) }
                let correction = try PatternCodec.decode(Correction.self, row.body)
                // Loaded after marking it undone: the constraints are those still in force.
                let data = try loadOwnerPatterns(store, owner: owner, withVectors: true)
                let constraints = Constraints.derive(from: data.corrections, occurrences: data.occurrences)
                let outcome = PatternEngine.undo(correction, state: data.state, occurrences: data.occurrences,
                                                 constraints: constraints, config: patternConfig.grouping)
                try savePatternOutcome(store, owner: owner, outcome)
                return ["correctionId": .int(id), "undone": true, "affectedGroups": .array(outcome.changedGroups.map { .int($0) })]
            }
        }
    }
}
