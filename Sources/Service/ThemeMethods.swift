import Foundation
import Grouping
import KindredCore
import JSONRPC
import Storage
import KindredProtocol

/// `patterns/themes`, theme corrections (through `patterns/correct`) and the theme fields of
/// `patterns/group`.
extension KindredService {
    func themes(_ req: PatternsThemes, _ ctx: RequestContext) throws(ResponseError) -> PatternsThemes.Result {
        let owner = req.owner, period = req.period
        let config = patternConfig
        let version = indexVersion
        let (data, themes, eligible) = try withPatternReader(owner: owner) { store in
            (try loadOwnerPatterns(store, owner: owner, withVectors: false), try loadThemes(store, owner: owner),
             try store.analysedRecords(owner: owner, indexVersion: version, includePassages: config.passageOccurrences))
        }
        try ctx.checkCancelled()
        // The denominator, as findings count it: eligible records of the kinds asked, in the period.
        let kinds = req.kinds.map(Set.init)
        var counted: [String: String?] = [:]
        for r in eligible where kinds.map({ r.kind.map($0.contains) ?? false }) ?? true {
            if let period, !period.contains(r.date) { continue }
            counted[r.id] = .some(r.date)
        }
        let labels = ThemeEngine.labels(themes: themes.state, groups: data.state, occurrences: data.occurrences, config: themeConfig)
        var items: [PatternsThemes.Result.Theme] = []
        for t in themes.state.sortedThemes where t.state == .active && !t.dismissed {
            if let c = req.category, t.category != c { continue }
            items.append(Self.theme(t, state: data.state, occurrences: data.occurrences, counted: counted, label: labels[t.id],
                                    what: req.kinds.map { "eligible \($0.joined(separator: " or ")) records" } ?? "eligible records"))
        }
        items.sort { $0.records > $1.records }
        let start = min(req.offset, items.count)
        let end = req.limit.map { min(items.count, start + $0) } ?? items.count
        return PatternsThemes.Result(eligibleRecords: counted.count, total: items.count, themes: Array(items[start..<end]),
                                     nextCursor: end < items.count ? PageCursor.themes.string(end) : nil)
    }

    /// One theme as answered, with the distinct counted records its groups hold.
    static func theme(_ t: Theme, state: PatternState, occurrences: [Int64: Occurrence], counted: [String: String?],
                      label: GeneratedLabel?, what: String) -> PatternsThemes.Result.Theme {
        var records = Set<String>()
        var perGroup: [PatternsThemes.Result.GroupDetail] = []
        var evidence: [PatternsThemes.Result.Evidence] = []
        for m in t.members {
            guard let g = state.groups[m.groupID] else { continue }
            var groupRecords = Set<String>()
            for o in g.members { if let occ = occurrences[o.occurrenceID], counted[occ.recordID] != nil { groupRecords.insert(occ.recordID) } }
            records.formUnion(groupRecords)
            perGroup.append(.init(groupId: Int(g.id), records: groupRecords.count, source: m.source.rawValue,
                                  representative: t.representative == g.id, example: t.examples.contains(g.id)))
            // Evidence: the representative occurrence of each example group.
            if t.examples.contains(g.id), let medoid = g.medoid, let occ = occurrences[medoid], counted[occ.recordID] != nil {
                evidence.append(.init(groupId: Int(g.id), recordId: occ.recordID, revision: Int(occ.recordRevision), occurrenceId: Int(medoid),
                                      excerpt: occ.excerpt, date: occ.recordDate))
            }
        }
        return PatternsThemes.Result.Theme(
            themeId: Int(t.id), version: t.version, category: t.category, label: label?.text ?? "", description: label?.description ?? "",
            keywords: label?.keywords ?? [], groups: t.members.map { Int($0.groupID) }, groupDetails: perGroup,
            representativeGroupId: t.representative.map { Int($0) }, records: records.count, eligible: counted.count,
            summary: "\(records.count) of \(counted.count) \(what) in this period, across \(t.members.count) groups", evidence: evidence)
    }

    /// The theme fields of `patterns/group`: the theme holding the group (null when none is active).
    func themeOfGroup(_ store: RecordStore, owner: String, groupID: Int64, state: PatternState, occurrences: [Int64: Occurrence]) throws -> GroupTheme? {
        let themes = try loadThemes(store, owner: owner)
        guard let t = themes.state.theme(ofGroup: groupID), t.state == .active, !t.dismissed else { return nil }
        let label = ThemeEngine.labels(themes: ThemeState(themes: [t.id: t]), groups: state, occurrences: occurrences, config: themeConfig)[t.id]
        return GroupTheme(themeId: Int(t.id), version: t.version, label: label?.text, groups: t.members.map { Int($0.groupID) },
                          source: t.member(groupID)?.source.rawValue, representative: t.representative == groupID)
    }

    /// A theme correction: resolved, stored apart from group corrections (ids from the same
    /// sequence), applied to the themes it names at once and honoured by every later refresh.
    func correctTheme(owner: String, _ request: ThemeCorrectionRequest, note: String?, createdAt: String) throws(ResponseError) -> PatternsCorrect.Result {
        try withPatternWriter(owner: owner) { store in
            try store.database.transaction {
                let data = try loadOwnerPatterns(store, owner: owner, withVectors: true)
                let themes = try loadThemes(store, owner: owner)
                let id = try store.nextCorrectionID()
                let (correction, outcome): (ThemeCorrection, ThemeOutcome)
                do {
                    (correction, outcome) = try ThemeEngine.correct(
                        request, id: id, note: note, createdAt: createdAt, themes: themes.state, groups: data.state,
                        occurrences: data.occurrences, existing: themes.corrections, config: themeConfig)
                } catch let e as ThemeError {
                    throw ResponseError.theme(e, owner: owner)
                }
                try store.insertCorrection(into: .themes, id: id, owner: owner, body: try PatternCodec.encode(correction), createdAt: correction.createdAt)
                try saveThemeOutcome(store, owner: owner, outcome)
                return PatternsCorrect.Result(correctionId: Int(id), affectedGroups: [], affectedThemes: outcome.changedThemes.map { Int($0) })
            }
        }
    }

    /// A theme correction on the wire (`patterns/corrections` lists them under `themeCorrections`).
    static func themeCorrectionRecord(_ c: ThemeCorrection, undone: Bool) -> ThemeCorrectionRecord {
        var o = ThemeCorrectionRecord(correctionId: Int(c.id), createdAt: c.createdAt, undone: undone, note: c.note, kind: "", themeId: 0)
        switch c.kind {
        case let .remove(t, g): o.kind = "themeRemove"; o.themeId = Int(t); o.groupId = Int(g)
        case let .pin(t, g): o.kind = "themePin"; o.themeId = Int(t); o.groupId = Int(g)
        case let .split(t, out, n, _): o.kind = "themeSplit"; o.themeId = Int(t); o.moveOut = out.map { Int($0) }; o.newThemeId = Int(n)
        case let .merge(into, from, _): o.kind = "themeMerge"; o.themeId = Int(into); o.fromThemeId = Int(from)
        case let .dismiss(t, groups): o.kind = "themeDismiss"; o.themeId = Int(t); o.groups = groups.map { Int($0) }
        }
        return o
    }
}

extension ResponseError {
    static func theme(_ error: ThemeError, owner: String) -> ResponseError {
        switch error {
        case let .unknownTheme(t): return .notFound("theme", id: String(t), owner: owner)
        case let .unknownGroup(g): return .notFound("group", id: String(g), owner: owner)
        case let .invalid(field, reason): return .invalidParams(field: field, reason: reason)
        }
    }
}

extension KindredService {
    /// Undoes a theme correction when `id` is one (nil otherwise): it stops constraining, and a
    /// dismissed theme re-opens; the next refresh places groups again.
    func undoThemeCorrection(_ store: RecordStore, owner: String, id: Int64) throws -> PatternsUndoCorrection.Result? {
        guard let row = try store.correctionRows(in: .themes, owner: owner).first(where: { $0.id == id && !$0.undone }),
              try store.undoCorrection(in: .themes, owner: owner, id: id) else { return nil }
        let correction = try PatternCodec.decode(ThemeCorrection.self, row.body)
        // What the last theme refresh kept assumes the constraints it ran under; an undo relaxes them.
        _ = themeProfiles.take(owner)
        let data = try loadOwnerPatterns(store, owner: owner, withVectors: true)
        let themes = try loadThemes(store, owner: owner)
        let outcome = ThemeEngine.undo(correction, themes: themes.state, groups: data.state, occurrences: data.occurrences,
                                       remaining: themes.corrections, config: themeConfig)
        try saveThemeOutcome(store, owner: owner, outcome)
        return PatternsUndoCorrection.Result(correctionId: Int(id), undone: true, affectedGroups: [], affectedThemes: outcome.changedThemes.map { Int($0) })
    }
}
