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
