import JSONRPC
import KindredProtocol

/// `usage/daily`: `owner`, `from?`, `to?` (UTC days, YYYY-MM-DD, inclusive).
extension UsageDaily: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {
        if let from { try Self.day(from, field: "from") }
        if let to { try Self.day(to, field: "to") }
    }

    static func day(_ s: String, field: String) throws(ResponseError) {
        guard s.utf8.count == 10, ISODate.isValid(s) else { throw .invalidParams(field: field, reason: "must be a day as YYYY-MM-DD, got '\(s)'") }
    }
}

extension UsageDaily.Result.Day: ExplicitNulls {}
extension UsageDaily.Result.Limits: ExplicitNulls {}
