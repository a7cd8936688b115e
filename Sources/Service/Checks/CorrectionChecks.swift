import Grouping
import JSONRPC
import KindredProtocol

/// `patterns/correct`'s `correction`. Its `kind` says which fields it takes besides `kind`,
/// `groupId` and `note` (a theme kind: besides `kind` and `note`); a field another kind uses is
/// refused (`correction.moveOut` on a dismiss). So it is read by hand, `kind` first.
extension PatternsCorrect.Correction: ParamsReadable {
    /// Every kind and its own fields.
    static let kinds: [(kind: String, fields: [String])] = [
        ("dismiss", ["occurrenceId"]), ("split", ["moveOut"]), ("merge", ["fromGroupId"]), ("pin", ["occurrenceId"]),
        ("exclude", ["occurrenceId"]),
        ("themeRemove", ["themeId", "groupId"]), ("themeSplit", ["themeId", "moveOut"]), ("themeMerge", ["themeId", "fromThemeId"]),
        ("themePin", ["themeId", "groupId"]), ("themeDismiss", ["themeId"]),
    ]

    static func read(_ d: ParamsDecoder) throws -> Self {
        guard case .object(let o) = try d.present() else { throw d.fail("must be an object") }
        try FieldRules.refuseUnknown(o, keys: fields, prefix: d.field, what: "a correction field")
        let kind = try d.member("kind").decode(String.self)
        guard let own = kinds.first(where: { $0.kind == kind })?.fields else {
            throw d.member("kind").fail("must be one of \(kinds.map(\.kind).joined(separator: ", "))")
        }
        let theme = kind.hasPrefix("theme")
        try FieldRules.refuseUnknown(o, keys: (theme ? ["kind", "note"] : ["kind", "groupId", "note"]) + own, prefix: d.field,
                                     what: "a field of a \(kind) correction")
        func int(_ key: String) throws -> Int { try d.member(key).decode(Int.self) }
        func note() throws -> String? {
            let n = d.member("note")
            guard !n.value.isNull else { return nil }
            let s = try n.decode(String.self)
            try ReadRule.maxBytes(1000).check(s, field: n.field)
            return s
        }
        /// `moveOut`: at least one id, each an integer (`what` it names).
        func ids(_ what: String, _ atLeastOne: String) throws -> [Int] {
            let m = d.member("moveOut")
            guard case .array(let a) = try m.present() else { throw m.fail("must be an array") }
            var out: [Int] = []
            for (i, v) in a.enumerated() { out.append(Int(try FieldRules.integer(v, field: "\(m.field)[\(i)]", what: what))) }
            guard !out.isEmpty else { throw m.fail("must name at least one \(atLeastOne)") }
            return out
        }
        if !theme {
            let group = try int("groupId"), note = try note()
            switch kind {
            case "dismiss": return .dismiss(occurrence: try int("occurrenceId"), from: group, note: note)
            case "pin": return .pin(occurrence: try int("occurrenceId"), to: group, note: note)
            case "exclude": return .exclude(occurrence: try int("occurrenceId"), from: group, note: note)
            case "merge": return .merge(try int("fromGroupId"), into: group, note: note)
            default: return .split(group, moveOut: try ids("an occurrence id (integer)", "occurrence"), note: note)
            }
        }
        let note = try note(), themeID = try int("themeId")
        switch kind {
        case "themeRemove": return .themeRemove(group: try int("groupId"), from: themeID, note: note)
        case "themePin": return .themePin(group: try int("groupId"), to: themeID, note: note)
        case "themeMerge": return .themeMerge(try int("fromThemeId"), into: themeID, note: note)
        case "themeDismiss": return .themeDismiss(themeID, note: note)
        default: return .themeSplit(themeID, moveOut: try ids("a group id (integer)", "group"), note: note)
        }
    }

    /// The group correction asked for; nil for a theme kind. Its fields are there: `read` required them.
    var groupKind: CorrectionKind? {
        let group = Int64(groupId ?? 0), occurrence = Int64(occurrenceId ?? 0)
        switch kind {
        case "dismiss": return .dismiss(occurrence: occurrence, group: group)
        case "pin": return .pin(occurrence: occurrence, group: group)
        case "exclude": return .exclude(occurrence: occurrence, group: group)
        case "merge": return .merge(into: group, from: Int64(fromGroupId ?? 0))
        case "split": return .split(group: group, moveOut: (moveOut ?? []).map(Int64.init))
        default: return nil
        }
    }

    /// The theme correction asked for; nil for a group kind.
    var themeRequest: ThemeCorrectionRequest? {
        let theme = Int64(themeId ?? 0), group = Int64(groupId ?? 0)
        switch kind {
        case "themeRemove": return .remove(theme: theme, group: group)
        case "themePin": return .pin(theme: theme, group: group)
        case "themeMerge": return .merge(into: theme, from: Int64(fromThemeId ?? 0))
        case "themeDismiss": return .dismiss(theme: theme)
        case "themeSplit": return .split(theme: theme, moveOut: (moveOut ?? []).map(Int64.init))
        default: return nil
        }
    }
}
