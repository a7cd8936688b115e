import KindredCore
import JSONRPC
import KindredProtocol

/// `search/query`: `owner`, `text` and/or `vector`, `limit?`, `mode?`, `filters?`.
extension SearchQuery: ServedRequest {
    func check(_ rules: ParamRules) throws(ResponseError) {
        guard text != nil || vector != nil else { throw .invalidParams(field: "text", reason: "text or vector is required") }
        guard let mode = searchMode else { throw .invalidParams(field: "mode", reason: "must be one of hybrid, semantic, keyword") }
        if mode == .keyword, text == nil { throw .invalidParams(field: "text", reason: "is required in keyword mode") }
        try SearchLimit.check(limit, rules)
        try filters?.check()
    }

    /// The mode asked for (`hybrid` when absent); nil when it names none.
    var searchMode: KindredService.SearchMode? { KindredService.SearchMode(rawValue: mode ?? "hybrid") }
}

/// `search/similar`: `owner`, `id`, `limit?`, `filters?`.
extension SearchSimilar: ServedRequest {
    static var readRules: [String: ReadRule] { ["owner": .name(), "id": .name()] }

    func check(_ rules: ParamRules) throws(ResponseError) {
        try SearchLimit.check(limit, rules)
        try filters?.check()
    }
}

/// The `limit` both searches take: at least 1, at most `search.maxLimit` (`search.defaultLimit` when absent).
enum SearchLimit {
    static func check(_ limit: Int?, _ rules: ParamRules) throws(ResponseError) {
        guard let limit else { return }
        guard limit >= 1 else { throw .invalidParams(field: "limit", reason: "must be at least 1") }
        guard limit <= rules.maxLimit else { throw .limitExceeded(field: "limit", limit: rules.maxLimit) }
    }
}

/// The `filters` both searches take (kinds and tags are names by their type).
extension KindredProtocol.SearchFilters: ParamsObject {
    static let role = "a filter"

    func check() throws(ResponseError) {
        if let tagsMode, KindredCore.SearchFilters.TagsMode(rawValue: tagsMode) == nil {
            throw .invalidParams(field: "filters.tagsMode", reason: "must be \"any\" or \"all\"")
        }
        if let from { try FieldRules.date(from, field: "filters.from") }
        if let to { try FieldRules.date(to, field: "filters.to") }
    }

    /// The filters as the store applies them.
    var applied: KindredCore.SearchFilters {
        var f = KindredCore.SearchFilters()
        f.kinds = kinds
        f.tags = tags
        f.tagsMode = tagsMode.flatMap { KindredCore.SearchFilters.TagsMode(rawValue: $0) } ?? .any
        f.from = from
        f.to = to
        f.metadata = metadata.map { m in JSONObject(m.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value) }) }
        return f
    }
}

/// A hit's `kind` and `date` are null when the record has none.
extension SearchResults.Hit: ExplicitNulls {}
