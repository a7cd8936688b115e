import JSONRPC
import KindredProtocol

/// `records/delete`: `owner`, `ids` (names, by their type).
extension RecordsDelete: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {
        try FieldRules.name(owner, field: "owner")
    }
}

/// `records/purgeTombstones`: `owner?` (every owner when absent), `before` (a date or timestamp).
extension RecordsPurgeTombstones: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {
        if let owner { try FieldRules.name(owner, field: "owner") }
        try FieldRules.date(before, field: "before")
    }
}
