import Foundation
import Grouping
import KindredCore
import JSONRPC
import Storage
import KindredProtocol

/// Pattern discovery methods: findings, groups, labels and corrections.
extension KindredService {
    // MARK: findings

    func findings(_ req: PatternsFindings, _ ctx: RequestContext) throws(ResponseError) -> PatternsFindings.Result {
        let owner = req.owner, query = try req.query()
        let config = patternConfig
        let version = indexVersion
        let (data, eligible) = try withPatternReader(owner: owner) { store in
            (try loadOwnerPatterns(store, owner: owner, withVectors: false),
             try store.analysedRecords(owner: owner, indexVersion: version, includePassages: config.passageOccurrences))
        }
        try ctx.checkCancelled()
        // With `kinds`, records of other kinds are neither counted nor evidence.
        let kinds = req.kinds.map(Set.init)
        var eligibleRecords: [String: String?] = [:]
        for r in eligible where kinds.map({ r.kind.map($0.contains) ?? false }) ?? true { eligibleRecords[r.id] = .some(r.date) }
        let report = PatternEngine.findings(state: data.state, occurrences: data.occurrences, eligibleRecords: eligibleRecords,
                                            query: query, config: config.grouping)
        let page = FindingsPage(report.findings, offset: req.offset, limit: req.limit)
        let what = req.kinds.map { "eligible \($0.joined(separator: " or ")) records" } ?? "eligible records"
        return PatternsFindings.Result(
            eligibleRecords: report.denominator, insufficientHistory: report.insufficientHistory, total: report.findings.count,
            findings: page.items.map { f in
                var f = f
                f.summary = "\(f.fraction.count) of \(f.fraction.denominator) \(what) in this period"
                return PatternJSON.finding(f, labelDescription: data.labelDescriptions[f.groupID], evidenceLimit: req.evidenceLimit)
            },
            nextCursor: page.nextOffset.map(PageCursor.findings.string))
    }

    // MARK: groups

    func patternGroup(_ req: PatternsGroup) throws(ResponseError) -> PatternsGroup.Result {
        let owner = req.owner, groupID = Int64(req.groupId)
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
            // The specific word the members share: why they belong together.
            let shared = PatternEngine.sharedElement(of: g, occurrences: data.occurrences, config: config.grouping)
            return PatternsGroup.Result(
                group: PatternJSON.group(g, members: members, label: labels[g.id], labelDescription: data.labelDescriptions[g.id], sharedElement: shared),
                corrections: corrections.map { PatternJSON.correction($0.1, undone: $0.0.undone) },
                // The theme holding the group (`ThemeMethods.swift`).
                theme: try themeOfGroup(store, owner: owner, groupID: groupID, state: data.state, occurrences: data.occurrences))
        }
    }

    func setLabel(_ req: PatternsSetLabel) throws(ResponseError) -> PatternsSetLabel.Result {
        let owner = req.owner, groupID = Int64(req.groupId), version = req.version, label = req.label, description = req.description
        return try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                let (state, _, _) = try loadPatternState(store, owner: owner)
                let next = try PatternEngine.setLabel(state, groupID: groupID, version: version, label: label)
                try store.saveGroupRow(try PatternCodec.groupRow(next.groups[groupID]!))
                try store.setGroupLabelDescription(owner: owner, id: groupID, description: label == nil ? nil : description)
                return PatternsSetLabel.Result(ok: true, groupId: Int(groupID), version: version, label: label)
            }
        }
    }

    // MARK: corrections

    func correct(_ req: PatternsCorrect) throws(ResponseError) -> PatternsCorrect.Result {
        let owner = req.owner, createdAt = ISO8601DateFormatter().string(from: Date())
        guard let kind = req.correction.groupKind else {
            return try correctTheme(owner: owner, req.correction.themeRequest!, note: req.correction.note, createdAt: createdAt)
        }
        let request = CorrectionRequest(kind: kind, note: req.correction.note, createdAt: createdAt)
        let config = patternConfig.grouping
        return try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                let data = try loadOwnerPatterns(store, owner: owner, withVectors: true)
                let id = try store.nextCorrectionID()
                let (correction, _, outcome) = try PatternEngine.correct(request, id: id, state: data.state, occurrences: data.occurrences,
                                                                         existing: data.corrections, config: config)
                try store.insertCorrection(id: id, owner: owner, body: try PatternCodec.encode(correction), createdAt: correction.createdAt)
                try savePatternOutcome(store, owner: owner, outcome)
                return PatternsCorrect.Result(correctionId: Int(id), affectedGroups: outcome.changedGroups.map { Int($0) })
            }
        }
    }

    func corrections(_ req: PatternsCorrections) throws(ResponseError) -> PatternsCorrections.Result {
        let owner = req.owner
        let rows = try withPatternReader(owner: owner) { try $0.correctionRows(owner: owner) }
        let out = rows.compactMap { row in (try? PatternCodec.decode(Correction.self, row.body)).map { PatternJSON.correction($0, undone: row.undone) } }
        let themeRows = try withPatternReader(owner: owner) { try $0.correctionRows(in: .themes, owner: owner) }
        let themed = themeRows.compactMap { row in
            (try? PatternCodec.decode(ThemeCorrection.self, row.body)).map { Self.themeCorrectionRecord($0, undone: row.undone) }
        }
        return PatternsCorrections.Result(corrections: out, themeCorrections: themed)
    }

    /// Undoes a correction: it stops constraining later refreshes (constraints are derived from the
    /// corrections still in force), and the engine moves back what it moved (`PatternEngine.undo`);
    /// an occurrence it sent to pending is evaluated afresh by the next refresh.
    func undoCorrection(_ req: PatternsUndoCorrection) throws(ResponseError) -> PatternsUndoCorrection.Result {
        let owner = req.owner, id = Int64(req.correctionId)
        return try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                if let undone = try undoThemeCorrection(store, owner: owner, id: id) { return undone }
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
                return PatternsUndoCorrection.Result(correctionId: Int(id), undone: true, affectedGroups: outcome.changedGroups.map { Int($0) })
            }
        }
    }
}
