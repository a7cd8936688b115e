public import KindredCore
public import JSONRPC

extension KindredService {
    /// Calls a method in-process, without a server (the CLI uses this). Same validation, same results.
    public func call(_ method: String, _ params: JSONValue, context: RequestContext? = nil) throws(ResponseError) -> JSONValue {
        let ctx = context ?? RequestContext(id: .null, method: method)
        switch method {
        case "records/upsert": return try upsert(params, ctx)
        case "records/delete": return try delete(params)
        case "records/get": return try get(params)
        case "records/setPermissions": return try setPermissions(params)
        case "records/purgeTombstones": return try purgeTombstones(params)
        case "search/query": return try searchQuery(params, ctx)
        case "search/similar": return try searchSimilar(params, ctx)
        case "index/status": return try status(params)
        case "index/rebuild": return try rebuildIndex(params, ctx)
        default:
            if let result = try patternCall(method, params, ctx) { return result }
            throw ResponseError.methodNotFound(method)
        }
    }

    /// Checks one record object as `records/upsert` would; returns the problem, or nil when it is valid.
    public func validateRecord(_ record: JSONValue) -> ResponseError? {
        do throws(ResponseError) {
            _ = try RecordInput.parseOne(record, index: 0, dimension: indexVersion.dimension)
            return nil
        } catch {
            return error
        }
    }
}
