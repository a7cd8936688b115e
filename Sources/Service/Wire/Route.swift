import KindredCore
import JSONRPC
import KindredProtocol

/// A protocol request type the service answers as it is: `ParamsDecoder` decodes its params, then
/// `check` applies the rules its types cannot state (a name, a date, a range), naming the field.
protocol ServedRequest: KindredRequest {
    /// Its params' rules by key, checked as each field is read (`ReadRule`).
    static var readRules: [String: ReadRule] { get }
    func check(_ rules: ParamRules) throws(ResponseError)
    /// The request read from its params object; `ParamsDecoder` has already refused unknown keys.
    /// By default the type's own `init(from:)`; a request whose fields are read in another order
    /// (one decides what the others mean) reads them itself.
    static func read(_ decoder: ParamsDecoder) throws -> Self
}

extension ServedRequest {
    /// Every method's `owner` is a name.
    static var readRules: [String: ReadRule] { ["owner": .name()] }
    static func read(_ decoder: ParamsDecoder) throws -> Self { try Self(from: decoder) }
}

/// A method as the service answers it: its params decoded, the handler run, its answer encoded.
/// The one place a request is decoded and its result encoded.
struct Route: Sendable {
    let method: String
    /// The method's protocol type: the catalogue is the routes' types (`requestTypes`).
    let request: any KindredRequest.Type
    let kind: MethodKind
    let keys: [String]
    let run: @Sendable (KindredService, JSONValue?, RequestContext) throws(ResponseError) -> JSONValue

    /// A method answered with its protocol types: the request decoded, the result encoded here.
    init<R: ServedRequest>(_ type: R.Type, _ kind: MethodKind,
                           _ handler: @escaping @Sendable (KindredService, R, RequestContext) throws(ResponseError) -> R.Result) {
        self.init(type, kind, later: { service, request, ctx throws(ResponseError) in try handler(service, request, ctx) })
    }

    /// As above, for a handler that may answer later (`RequestContext.answerLater`): nil now
    /// (answered null, never sent), its answer then.
    init<R: ServedRequest>(_ type: R.Type, _ kind: MethodKind,
                           later handler: @escaping @Sendable (KindredService, R, RequestContext) throws(ResponseError) -> R.Result?) {
        method = R.method
        request = R.self
        self.kind = kind
        keys = R.spec.keys
        run = { service, params, ctx throws(ResponseError) in
            let request = try ParamsDecoder.request(R.self, params, rules: service.paramRules)
            return try Self.tallied { () throws(ResponseError) in try handler(service, request, ctx).map(ResultEncoder.json) ?? .null }
        }
    }

    /// Runs `answer`; work that called a remote provider says so in the answer's `usage`.
    static func tallied(_ answer: () throws(ResponseError) -> JSONValue) throws(ResponseError) -> JSONValue {
        let tally = UsageTally()
        let result: JSONValue
        do {
            result = try UsageTally.$current.withValue(tally) { try answer() }
        } catch let e as ResponseError {
            throw e
        } catch {
            throw ResponseError.internalError(String(describing: error))
        }
        guard let usage = tally.json, case .object(var o) = result else { return result }
        o["usage"] = usage
        return .object(o)
    }
}
