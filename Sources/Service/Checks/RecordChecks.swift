import JSONRPC
import KindredProtocol

/// `records/delete`: `owner`, `ids` (names, by their type).
extension RecordsDelete: ServedRequest {
    /// Nothing beyond its types and its owner's name.
    func check(_ rules: ParamRules) throws(ResponseError) {}
}

/// `records/purgeTombstones`: `owner?` (every owner when absent), `before` (a date or timestamp).
extension RecordsPurgeTombstones: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {
        try FieldRules.date(before, field: "before")
    }
}
