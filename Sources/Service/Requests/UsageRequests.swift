import KindredCore
import JSONRPC
import KindredProtocol

/// `usage/daily`: `owner`, `from?`, `to?` (UTC days, YYYY-MM-DD, inclusive).
extension UsageDaily: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var from: String?
        var to: String?

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            from = try Self.day(p, "from")
            to = try Self.day(p, "to")
        }

        static func day(_ p: Params, _ key: String) throws(ResponseError) -> String? {
            guard let s = try p.optionalString(key) else { return nil }
            guard s.utf8.count == 10, ISODate.isValid(s) else { throw ResponseError.invalidParams(field: key, reason: "must be a day as YYYY-MM-DD, got '\(s)'") }
            return s
        }
    }
}
