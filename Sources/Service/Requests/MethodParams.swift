import KindredCore
import JSONRPC
import KindredProtocol

/// A protocol request type the service answers: its params checked strictly into `Checked`, the
/// values its handler takes. The method's name and the keys its params object may hold are the
/// protocol's (`spec`), so a key the catalogue lacks is refused.
protocol CheckedRequest: KindredRequest {
    associatedtype Checked: MethodParams
}

/// One request's params as the service reads them, refusing anything its method does not take.
protocol MethodParams: Sendable {
    init(_ p: Params) throws(ResponseError)
}

extension CheckedRequest {
    static func check(_ params: JSONValue?, rules: ParamRules) throws(ResponseError) -> Checked {
        try Checked(Params(params, method: spec.method, keys: spec.keys, rules: rules))
    }
}

/// A method as the service answers it: its params type decoded, then the handler.
struct Route: Sendable {
    let method: String
    let kind: MethodKind
    let keys: [String]
    let run: @Sendable (KindredService, JSONValue?, RequestContext) throws(ResponseError) -> JSONValue

    init<R: CheckedRequest>(_ type: R.Type, _ kind: MethodKind,
                            _ handler: @escaping @Sendable (KindredService, R.Checked, RequestContext) throws(ResponseError) -> JSONValue) {
        method = R.method
        self.kind = kind
        keys = R.spec.keys
        run = { service, params, ctx throws(ResponseError) in
            let request = try R.check(params, rules: service.paramRules)
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
