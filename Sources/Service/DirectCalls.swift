public import KindredCore
public import JSONRPC
public import VectorIndex
public import KindredProtocol

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

    /// Every method name the service answers (besides `initialize` and `shutdown`).
    public static var methodNames: [String] { routes.map(\.method) }

    /// The protocol type of every method the service answers, in the routes' order: the catalogue
    /// (`KindredMethods.all` in KindredKit).
    public static var requestTypes: [any KindredRequest.Type] { routes.map { $0.request } }

    /// Whether `method` is a write (applied one at a time, in order) rather than a read.
    public func isWrite(method: String) -> Bool { Self.route(method)?.kind == .write }

    /// As `call`, for a caller that schedules requests itself: a write that asked to be answered
    /// later (`records/upsert` with `waitForIndex`) returns the rest of its work as a second value,
    /// to run after the write, beside other requests.
    public func callAnsweringLater(_ method: String, _ params: JSONValue, context ctx: RequestContext)
        throws(ResponseError) -> (JSONValue, (@Sendable () throws(ResponseError) -> JSONValue)?) {
        let result = try call(method, params, context: ctx)
        guard let later = ctx.takeAnswerLater() else { return (result, nil) }
        return (result, { () throws(ResponseError) -> JSONValue in
            do {
                return try RequestContext.$current.withValue(ctx) { try later(result) }
            } catch let e as ResponseError {
                throw e
            } catch {
                throw ResponseError.internalError(String(describing: error))
            }
        })
    }

    /// Checks one record object as `records/upsert` would; returns the problem, or nil when it is valid.
    public func validateRecord(_ record: JSONValue) -> ResponseError? {
        do {
            _ = try ParamsDecoder(value: record, field: "records[0]", rules: paramRules).decode(RecordInput.self)
            return nil
        } catch {
            return ParamsDecoder.responseError(error)
        }
    }

    /// Writes records that are already valid (as `records/upsert` would accept them) without going
    /// through JSON: the same transaction, index update and follow-ups as `records/upsert`. For
    /// loading many raw vectors in-process; returns how many records were written or settled.
    public func upsert(owner: String, records: [Record]) throws(ResponseError) -> Int {
        try apply(owner: owner, records: records).count
    }

    /// Every owner with its number of records, by name (for a command line's "owners here are …").
    public func ownerCounts() throws(ResponseError) -> [(owner: String, records: Int)] {
        try withReader { try $0.ownerCounts() }
    }

    /// `owner`'s kinds with their number of records, by name; nil is records without a kind.
    public func kindCounts(owner: String) throws(ResponseError) -> [(kind: String?, records: Int)] {
        try withReader { try $0.kindCounts(owner: owner) }
    }

    /// Runs `body` on the in-memory vector index under its read lock, as a search does.
    public func withVectorIndex<T>(_ body: (VectorIndex) throws -> T) rethrows -> T {
        try readIndex(body)
    }
}
