import KindredProtocol
public import KindredCore
public import JSONRPC
public import MCP

/// The service's methods as MCP tools for one owner: each tool is a service method with the owner
/// filled in by the server (an agent cannot name another person's owner id), the arguments read
/// by the method's own strict params, and its errors turned into tool results the model can act on.
extension KindredService {
    /// Guidance for the model about the server as a whole.
    public static let mcpInstructions = """
        Kindred searches one person's written history (journal entries, dream accounts, notes) and \
        finds recurring patterns in it. Every tool acts for that one person, fixed when the server \
        was started; no tool can reach anyone else's records. Counts are distinct records the \
        person wrote and allowed for analysis ("4 of 12 eligible records in this period"), not \
        days, nights or dreams they had: report them as counts of records, never as a diagnosis \
        or a psychological claim. Quote evidence excerpts exactly as given.
        """

    /// The tools, bound to `owner`, answered by this service.
    /// With `patterns.judge = client`, a client that declared MCP sampling lends its model as the
    /// judge (`SamplingJudgeChannel`); a judged refresh then runs to its end inside the tool call.
    public func mcpTools(owner: String) -> [Tool] {
        Self.mcpTools(owner: owner) { [self] method, params, ctx throws(ResponseError) in
            let sampling = ctx.with(client: ctx.client.map { SamplingJudgeChannel(inner: $0) })
            let (result, later) = try callAnsweringLater(method, params, context: sampling)
            return try later?() ?? result
        }
    }

    /// The tools, bound to `owner`, each answered by `call` with the method's params: a service in
    /// this process, or a cluster's router that sends them to the owner's shard.
    public static func mcpTools(owner: String, call: @escaping MethodCall) -> [Tool] {
        MCPToolCatalog.specs.map { spec in
            Tool(name: spec.name, title: spec.title, description: spec.description, inputSchema: spec.input,
                 outputSchema: spec.output, readOnly: route(spec.method)?.kind == .read) { arguments, ctx in
                runTool(spec, arguments: arguments, owner: owner, ctx, call)
            }
        }
    }

    /// A method answered somewhere: its name, its params, the request's context.
    public typealias MethodCall = @Sendable (_ method: String, _ params: JSONValue, _ context: RequestContext) throws(ResponseError) -> JSONValue

    static func runTool(_ spec: MCPToolSpec, arguments: JSONObject, owner: String, _ ctx: RequestContext, _ call: MethodCall) -> ToolResult {
        let names = spec.argumentNames
        for key in arguments.makeIterator().map(\.key) where !names.contains(key) {
            let list = names.isEmpty ? "none" : names.joined(separator: ", ")
            let reason = key == "owner"
                ? "this server acts for one person, fixed when it was started: leave `owner` out"
                : "is not an argument of \(spec.name) (arguments: \(list))"
            return .failure(message: "Invalid argument `\(key)`: \(reason)",
                            details: ["code": .int(Int64(ErrorCode.invalidParams.rawValue)), "field": .string(key), "reason": .string(reason),
                                      "arguments": .from(names)])
        }
        var params = spec.params(arguments)
        params["owner"] = .string(owner)
        do throws(ResponseError) {
            return .success(try call(spec.method, .object(params), ctx))
        } catch {
            return Self.toolFailure(error, spec: spec)
        }
    }

    /// A service error as a tool result: the field named as the tool's argument, in plain words.
    static func toolFailure(_ e: ResponseError, spec: MCPToolSpec) -> ToolResult {
        var details: JSONObject = ["code": .int(Int64(e.code.rawValue))]
        if case .object(let data)? = e.data {
            for (k, v) in data where k != "owner" && k != "accepted" && k != "unknown" { details[k] = v }
        }
        guard e.code == .invalidParams || e.code == .limitExceeded, let field = e.data?["field"]?.stringValue else {
            return .failure(message: e.message, details: .object(details))
        }
        let argument = spec.argument(field)
        let reason = e.data?["reason"]?.stringValue ?? e.message
        details["field"] = .string(argument)
        details["reason"] = .string(reason)
        return .failure(message: "Invalid argument `\(argument)`: \(reason)", details: .object(details))
    }
}
