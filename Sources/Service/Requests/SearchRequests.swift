import KindredCore
import JSONRPC
import KindredProtocol

/// `search/query`: `owner`, `text` and/or `vector`, `limit?`, `mode?`, `filters?`.
extension SearchQuery: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var text: String?
        var vector: [Float]?
        var limit: Int
        var mode: KindredService.SearchMode
        var filters: KindredCore.SearchFilters

        init(owner: String, text: String?, vector: [Float]?, limit: Int, mode: KindredService.SearchMode, filters: KindredCore.SearchFilters) {
            self.owner = owner
            self.text = text
            self.vector = vector
            self.limit = limit
            self.mode = mode
            self.filters = filters
        }

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            text = try p.optionalString("text")
            vector = try p.vector("vector")
            guard text != nil || vector != nil else { throw p.fail("text", "text or vector is required") }
            let modeText = try p.optionalString("mode") ?? "hybrid"
            guard let mode = KindredService.SearchMode(rawValue: modeText) else { throw p.fail("mode", "must be one of hybrid, semantic, keyword") }
            if mode == .keyword, text == nil { throw p.fail("text", "is required in keyword mode") }
            self.mode = mode
            limit = try SearchParams.limit(p)
            filters = try SearchParams.filters(p)
        }
    }
}

/// `search/similar`: `owner`, `id`, `limit?`, `filters?`.
extension SearchSimilar: CheckedRequest {
    struct Checked: MethodParams {
        var owner: String
        var id: String
        var limit: Int
        var filters: KindredCore.SearchFilters

        init(_ p: Params) throws(ResponseError) {
            owner = try p.name("owner")
            id = try p.name("id")
            limit = try SearchParams.limit(p)
            filters = try SearchParams.filters(p)
        }
    }
}

/// The `limit` and `filters` both searches take.
enum SearchParams {
    static func limit(_ p: Params) throws(ResponseError) -> Int {
        guard let l = try p.optionalInt("limit") else { return p.rules.defaultLimit }
        guard l >= 1 else { throw p.fail("limit", "must be at least 1") }
        guard l <= Int64(p.rules.maxLimit) else { throw ResponseError.limitExceeded(field: "limit", limit: p.rules.maxLimit) }
        return Int(l)
    }

    static func filters(_ p: Params) throws(ResponseError) -> KindredCore.SearchFilters {
        var f = KindredCore.SearchFilters()
        guard let fp = try p.optionalObject("filters", keys: KindredProtocol.SearchFilters.fields, what: "a filter") else { return f }
        f.kinds = try fp.names("kinds")
        f.tags = try fp.names("tags")
        if let m = try fp.optionalString("tagsMode") {
            guard let mode = KindredCore.SearchFilters.TagsMode(rawValue: m) else { throw fp.fail("tagsMode", "must be \"any\" or \"all\"") }
            f.tagsMode = mode
        }
        f.from = try fp.optionalDate("from")
        f.to = try fp.optionalDate("to")
        f.metadata = try fp.openObject("metadata")
        return f
    }
}
