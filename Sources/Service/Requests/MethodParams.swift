import KindredCore
import JSONRPC
import KindredProtocol

/// One request's params as the service reads them: checked strictly into the values its handler
/// takes. The method's name and the keys its params object may hold are those of the protocol's
/// request type (`Wire`); how the method is scheduled is the service's own.
protocol MethodParams: Sendable {
    associatedtype Wire: KindredRequest
    static var kind: MethodKind { get }
    init(_ p: Params) throws(ResponseError)
}

extension MethodParams {
    static var method: String { Wire.spec.method }
    /// Every key of the params object (besides `workDoneToken`, which every method accepts).
    static var keys: [String] { Wire.spec.keys }

    static func decode(_ params: JSONValue?, rules: ParamRules) throws(ResponseError) -> Self {
        try Self(Params(params, method: method, keys: keys, rules: rules))
    }
}

/// A method as the service answers it: its params type decoded, then the handler.
struct Route: Sendable {
    let method: String
    let kind: MethodKind
    let keys: [String]
    let run: @Sendable (KindredService, JSONValue?, RequestContext) throws(ResponseError) -> JSONValue

    init<R: MethodParams>(_ type: R.Type,
                          _ handler: @escaping @Sendable (KindredService, R, RequestContext) throws(ResponseError) -> JSONValue) {
        method = R.method
        kind = R.kind
        keys = R.keys
        run = { service, params, ctx throws(ResponseError) in
            let request = try R.decode(params, rules: service.paramRules)
            // Work that called a remote provider says so in `usage`.
            let tally = UsageTally()
            let result: JSONValue
            do {
                result = try UsageTally.$current.withValue(tally) { try handler(service, request, ctx) }
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
}
