import Foundation
import Grouping
import KindredCore
import JSONRPC
import KindredProtocol

/// `patterns/themes`: `owner`, `category?`, `kinds?`, `from?`, `to?`, `limit?`, `cursor?`.
extension PatternsThemes: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var category: String?
        /// Only records of these kinds count, in the denominators and as evidence.
        var kinds: [String]?
        var period: Period?
        var limit: Int?
        var offset: Int

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            category = try p.optionalName("category", maxLength: 128)
            kinds = try p.names("kinds")
            if let kinds, kinds.isEmpty { throw p.fail("kinds", "must name at least one kind (leave it out for every kind)") }
            period = try PatternsFindings.Checked.period(p, "from", "to")
            limit = try PatternsFindings.Checked.count(p, "limit")
            offset = 0
            if let cursor = try p.optionalString("cursor") {
                guard let n = ThemesCursor.offset(cursor) else { throw p.fail("cursor", "is not a cursor this method returned") }
                offset = n
            }
        }
    }
}

/// The `cursor` of a themes page: `t` + the position of the next theme.
enum ThemesCursor {
    static func string(_ offset: Int) -> String { "t\(offset)" }

    static func offset(_ cursor: String) -> Int? {
        guard cursor.hasPrefix("t"), cursor.count <= 12, let n = Int(cursor.dropFirst()), n >= 0, String(n) == cursor.dropFirst() else { return nil }
        return n
    }
}

/// A theme correction as asked (`patterns/correct` with a `theme…` kind).
struct ThemeCorrectionInput: Sendable {
    var request: ThemeCorrectionRequest
    var note: String?
    var createdAt: String
}

/// The theme kinds of `patterns/correct`'s `correction`: each takes `kind`, `note?` and its own
/// fields (any other is refused, naming it):
/// `themeRemove` {themeId, groupId}, `themeSplit` {themeId, moveOut: [groupId…]},
/// `themeMerge` {themeId, fromThemeId}, `themePin` {themeId, groupId}, `themeDismiss` {themeId}.
enum ThemeCorrectionParams {
    static let kindFields: [(kind: String, fields: [String])] = [
        ("themeRemove", ["themeId", "groupId"]), ("themeSplit", ["themeId", "moveOut"]), ("themeMerge", ["themeId", "fromThemeId"]),
        ("themePin", ["themeId", "groupId"]), ("themeDismiss", ["themeId"]),
    ]

    static func isTheme(_ p: Params) -> Bool {
        guard let kind = p.object["correction"]?.objectValue?["kind"]?.stringValue else { return false }
        return kindFields.contains { $0.kind == kind }
    }

    static func decode(_ p: Params) throws(ResponseError) -> ThemeCorrectionInput {
        guard let c = try p.optionalObject("correction", keys: CorrectionParams.keys, what: "a correction field") else {
            throw p.fail("correction", "is required")
        }
        let kindName = try c.string("kind")
        let fields = kindFields.first { $0.kind == kindName }!.fields
        try c.refuseUnknown(["kind", "note"] + fields, what: "a field of a \(kindName) correction")
        let note = try c.optionalString("note")
        if let note, note.utf8.count > 1000 { throw c.fail("note", "must be at most 1000 bytes") }
        let theme = try c.int("themeId")
        let request: ThemeCorrectionRequest
        switch kindName {
        case "themeRemove": request = .remove(theme: theme, group: try c.int("groupId"))
        case "themePin": request = .pin(theme: theme, group: try c.int("groupId"))
        case "themeMerge": request = .merge(into: theme, from: try c.int("fromThemeId"))
        case "themeDismiss": request = .dismiss(theme: theme)
        default:
            let items = try c.array("moveOut")
            var ids: [Int64] = []
            for (i, v) in items.enumerated() {
                ids.append(try FieldRules.integer(v, field: c.path("moveOut") + "[\(i)]", what: "a group id (integer)"))
            }
            guard !ids.isEmpty else { throw c.fail("moveOut", "must name at least one group") }
            request = .split(theme: theme, moveOut: ids)
        }
        return ThemeCorrectionInput(request: request, note: note, createdAt: ISO8601DateFormatter().string(from: Date()))
    }
}
