public import KindredCore
public import JSONRPC

extension KindredService {
    /// Calls a method in-process, without a server (the CLI uses this). Same validation, same results.
    public func call(_ method: String, _ params: JSONValue, context: RequestContext? = nil) throws(ResponseError) -> JSONValue {
        let ctx = context ?? RequestContext(id: .null, method: method)
        guard let route = Self.route(method) else { throw ResponseError.methodNotFound(method) }
        // Bound as the current request, as the server does: cancelling `ctx` interrupts its SQLite work.
        do {
            return try RequestContext.$current.withValue(ctx) { try route.run(self, params, ctx) }
        } catch let e as ResponseError {
            throw e
        } catch {
            throw ResponseError.internalError(String(describing: error))
        }
    }

    /// Checks one record object as `records/upsert` would; returns the problem, or nil when it is valid.
    public func validateRecord(_ record: JSONValue) -> ResponseError? {
        do throws(ResponseError) {
            _ = try RecordInput.parseOne(record, index: 0, rules: paramRules)
            return nil
        } catch {
            return error
        }
    }
}
