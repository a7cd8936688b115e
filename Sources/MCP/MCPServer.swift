import KindredCore
public import JSONRPC
import Dispatch
import Synchronization

/// A Model Context Protocol server over one newline-delimited JSON-RPC stream (the JSON-RPC
/// `MessageLoop` that `Server` also runs on), for clients of both protocol eras. The client's first request decides the era once, as the `mcp` SDK's own servers
/// do: a request carrying the 2026-07-28 envelope (`_meta` with the protocol version) opens a
/// stateless connection, where every request names its version and capabilities and every result
/// carries `resultType`; anything else (the `initialize` handshake) opens a handshake connection.
/// A later request of the other era is refused. Knows no domain: tools are given by the caller.
public final class MCPServer: MessageDispatcher, ClientChannel {
    public struct Info: Sendable {
        public var name: String
        public var version: String
        /// Guidance for the model about the server as a whole.
        public var instructions: String
        public init(name: String, version: String, instructions: String) {
            self.name = name
            self.version = version
            self.instructions = instructions
        }
    }

    enum Era: Equatable {
        case undecided
        case handshake(version: String?)
        case modern
    }

    struct State {
        var era = Era.undecided
        var inflight: [String: CancellationToken] = [:]
        /// The `capabilities` of the client's `initialize` (the handshake era).
        var clientCapabilities: JSONValue?
    }

    let info: Info
    let tools: [String: Tool]
    let toolOrder: [String]
    private let loop: MessageLoop
    private let state = Mutex(State())
    /// Requests sent to the client (`sampling/createMessage`), waiting for their responses.
    private let outgoing = OutgoingRequests()
    private let work = DispatchQueue(label: "kindred.mcp.work", attributes: .concurrent)
    private let group = DispatchGroup()

    public init(info: Info, tools: [Tool], sink: any MessageSink, maxMessageBytes: Int = 64 << 20) {
        self.info = info
        self.tools = Dictionary(tools.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.toolOrder = tools.map(\.name)
        self.loop = MessageLoop(framing: .ndjson, maxMessageBytes: maxMessageBytes, sink: sink)
    }

    func send(_ bytes: [UInt8]) { loop.send(bytes) }

    /// Reads until end of input (a blocking byte source returning nil at the end), answers every
    /// request, waits for calls still running, and returns the exit code (0).
    public func run(read: () -> [UInt8]?) -> Int32 { loop.run(read: read, dispatcher: self) }

    public var batchRefusal: ResponseError? { .invalidRequest("MCP does not use JSON-RPC batches: send one message per line") }
    public var stopsReading: Bool { false }

    public func finish() -> Int32 {
        // Nothing can answer the requests sent to the client any more.
        outgoing.close()
        group.wait()
        work.sync(flags: .barrier) {}
        return 0
    }

    /// Answers go out on their own (a tool call's when it finishes), so `reply` only ever gets nil.
    public func dispatch(_ message: IncomingMessage, reply: @escaping @Sendable ([UInt8]?) -> Void) {
        switch message {
        case let .response(id, result, error):
            outgoing.deliver(id: id, result: result, error: error)
        case .cancel:
            break
        case .invalid(let id, let error):
            send(OutgoingMessage.error(id: id, error))
        case .notification(let method, let params):
            notification(method, params)
        case .request(let id, let method, let params):
            request(id, method, params)
        }
        reply(nil)
    }

    func notification(_ method: String, _ params: JSONValue?) {
        switch method {
        case "notifications/cancelled":
            guard let id = params?["requestId"] else { return }
            state.withLock { $0.inflight[JSONWriter.string(id)] }?.cancel()
        default:
            break  // `notifications/initialized` and others need nothing from us.
        }
    }

    func request(_ id: RequestID, _ method: String, _ params: JSONValue?) {
        let enveloped = params?["_meta"]?[ProtocolVersions.protocolVersionKey] != nil
        let era: Era = state.withLock { s in
            if s.era == .undecided { s.era = (method != "initialize" && enveloped) ? .modern : .handshake(version: nil) }
            return s.era
        }
        do throws(ResponseError) {
            try IncomingMessage.checkParamsShape(params)
            switch era {
            case .modern: try modernRequest(id, method, params)
            default: try handshakeRequest(id, method, params, enveloped: enveloped, era: era)
            }
        } catch {
            send(OutgoingMessage.error(id: id, error))
        }
    }

    // MARK: handshake era (2024-11-05 … 2025-11-25)

    func handshakeRequest(_ id: RequestID, _ method: String, _ params: JSONValue?, enveloped: Bool, era: Era) throws(ResponseError) {
        if enveloped && method != "initialize" {
            throw ResponseError.invalidRequest("this connection began with initialize (the handshake era); "
                + "requests carrying the 2026-07-28 envelope are not accepted on it")
        }
        let negotiated: String? = if case .handshake(let v) = era { v } else { nil }
        switch method {
        case "initialize":
            guard negotiated == nil else { throw ResponseError.invalidRequest("initialize was already received") }
            guard case .string(let requested)? = params?["protocolVersion"] else {
                throw ResponseError.invalidParams(field: "protocolVersion", reason: "is required: the protocol revision the client speaks (a string)")
            }
            if let caps = params?["capabilities"], caps.objectValue == nil {
                throw ResponseError.invalidParams(field: "capabilities", reason: "must be an object")
            }
            let version = ProtocolVersions.negotiate(requested)
            state.withLock {
                $0.era = .handshake(version: version)
                $0.clientCapabilities = params?["capabilities"]
            }
            send(OutgoingMessage.result(id: id, [
                "protocolVersion": .string(version),
                "capabilities": ["tools": ["listChanged": false]],
                "serverInfo": serverInfo,
                "instructions": .string(info.instructions),
            ]))
        case "ping":
            send(OutgoingMessage.result(id: id, [:]))
        default:
            guard negotiated != nil else {
                throw ResponseError(code: .serverNotInitialized, message: "server not initialized: send initialize first "
                    + "(or, with protocol 2026-07-28, put the envelope in every request's _meta)")
            }
            try toolsRequest(id, method, params, modern: false)
        }
    }

    // MARK: stateless era (2026-07-28)

    func modernRequest(_ id: RequestID, _ method: String, _ params: JSONValue?) throws(ResponseError) {
        if method == "initialize" { throw ResponseError.unsupportedVersion(params?["protocolVersion"]) }
        guard let meta = params?["_meta"]?.objectValue else {
            throw ResponseError.invalidParams(field: "_meta", reason: "must be an object carrying \(ProtocolVersions.protocolVersionKey) "
                + "and \(ProtocolVersions.clientCapabilitiesKey): this connection speaks protocol 2026-07-28")
        }
        let missing = [ProtocolVersions.protocolVersionKey, ProtocolVersions.clientCapabilitiesKey].filter { meta[$0] == nil }
        if let first = missing.first {
            throw ResponseError.invalidParams(field: "_meta.\(first)", reason: "is required in every request of protocol 2026-07-28")
        }
        guard case .string(let version)? = meta[ProtocolVersions.protocolVersionKey] else {
            throw ResponseError.invalidParams(field: "_meta.\(ProtocolVersions.protocolVersionKey)", reason: "must be a string")
        }
        guard ProtocolVersions.modern.contains(version) else { throw ResponseError.unsupportedVersion(.string(version)) }
        if method == "server/discover" {
            send(OutgoingMessage.result(id: id, stamped([
                "supportedVersions": .from(ProtocolVersions.modern),
                "capabilities": ["tools": ["listChanged": false]],
                "instructions": .string(info.instructions),
                "cacheScope": "public", "ttlMs": 0,
            ])))
            return
        }
        try toolsRequest(id, method, params, modern: true)
    }

    /// A 2026-07-28 result: `resultType` and the server's identity in `_meta`.
    func stamped(_ result: JSONValue) -> JSONValue {
        guard case .object(var o) = result else { return result }
        o["resultType"] = "complete"
        var meta = o["_meta"]?.objectValue ?? [:]
        meta[ProtocolVersions.serverInfoKey] = serverInfo
        o["_meta"] = .object(meta)
        return .object(o)
    }

    var serverInfo: JSONValue { ["name": .string(info.name), "version": .string(info.version)] }

    // MARK: tools (both eras)

    func toolsRequest(_ id: RequestID, _ method: String, _ params: JSONValue?, modern: Bool) throws(ResponseError) {
        switch method {
        case "tools/list":
            if let cursor = params?["cursor"], !cursor.isNull {
                throw ResponseError.invalidParams(field: "cursor", reason: "is not a cursor this server gave (tools/list has one page)")
            }
            var result: JSONValue = ["tools": .array(toolOrder.compactMap { tools[$0]?.listing })]
            if modern {
                result = stamped(result)
                if case .object(var o) = result { o["cacheScope"] = "public"; o["ttlMs"] = 0; result = .object(o) }
            }
            send(OutgoingMessage.result(id: id, result))
        case "tools/call":
            guard case .string(let name)? = params?["name"] else {
                throw ResponseError.invalidParams(field: "name", reason: "is required: the name of a tool from tools/list")
            }
            guard let tool = tools[name] else {
                throw ResponseError.invalidParams(field: "name", reason: "unknown tool '\(name)' (tools: \(toolOrder.joined(separator: ", ")))",
                                                  extra: ["tools": .from(toolOrder)])
            }
            let arguments: JSONObject
            switch params?["arguments"] {
            case nil, .null?: arguments = [:]
            case .object(let o)?: arguments = o
            case let other?: throw ResponseError.invalidParams(field: "arguments", reason: "must be an object, got \(other.typeName)")
            }
            call(tool, arguments, id: id, progressToken: params?["_meta"]?["progressToken"], modern: modern)
        default:
            throw ResponseError.methodNotFound(method)
        }
    }

    /// Runs a tool call on the work queue: read-only tools side by side, the others one at a time
    /// in arrival order. A call cancelled by `notifications/cancelled` is not answered (as MCP asks).
    func call(_ tool: Tool, _ arguments: JSONObject, id: RequestID, progressToken: JSONValue?, modern: Bool) {
        let key = JSONWriter.string(id.value)
        let token = CancellationToken()
        state.withLock { $0.inflight[key] = token }
        let relay = ProgressRelay(token: progressToken) { [self] params in send(OutgoingMessage.notification("notifications/progress", params)) }
        // (Requests to the client are possible in the handshake era only: a stateless connection has none.)
        let ctx = RequestContext(id: id.value, method: "tools/call", token: token, workDoneToken: progressToken == nil ? nil : "mcp",
                                 client: modern ? nil : self) { method, params in
            if method == "$/progress" { relay.forward(params) }
        }
        group.enter()
        let job: @Sendable () -> Void = { [self] in
            defer {
                state.withLock { if $0.inflight[key] === token { $0.inflight[key] = nil } }
                group.leave()
            }
            if token.isCancelled { return }
            let result = tool.run(arguments, ctx)
            if token.isCancelled { return }
            send(OutgoingMessage.result(id: id, modern ? stamped(result.json) : result.json))
        }
        if tool.readOnly { work.async(execute: job) } else { work.async(flags: .barrier, execute: job) }
    }
}

// MARK: requests to the client (handshake era)

extension MCPServer {
    /// The capabilities the client declared in `initialize` (`sampling`, `roots`, …).
    public var clientCapabilities: JSONValue? { state.withLock { $0.clientCapabilities } }

    /// Sends `method` to the client and waits for its response (at most `timeout` seconds); a
    /// request not answered in time is cancelled with `notifications/cancelled`.
    public func request(_ method: String, _ params: JSONValue, timeout: Double, isCancelled: () -> Bool) -> ClientReply {
        outgoing.request(method, params, timeout: timeout, isCancelled: isCancelled, send: { send($0) },
                         cancel: { send(OutgoingMessage.notification("notifications/cancelled", ["requestId": $0.value, "reason": "no longer wanted"])) })
    }
}

/// Turns the service's `$/progress` reports into MCP `notifications/progress`, whose `progress`
/// must increase with every notification.
final class ProgressRelay: Sendable {
    private let token: JSONValue?
    private let last = Mutex<Int64>(-1)
    private let send: @Sendable (JSONValue) -> Void

    init(token: JSONValue?, send: @escaping @Sendable (JSONValue) -> Void) {
        self.token = token
        self.send = send
    }

    func forward(_ params: JSONValue) {
        guard let token, let value = params["value"] else { return }
        let percentage = value["percentage"]?.intValue ?? (value["kind"] == "end" ? 100 : nil)
        guard let p = percentage else { return }
        let rises = last.withLock { l -> Bool in
            guard p > l else { return false }
            l = p
            return true
        }
        guard rises else { return }
        var o: JSONObject = ["progressToken": token, "progress": .int(p), "total": 100]
        if let message = value["message"]?.stringValue ?? value["title"]?.stringValue { o["message"] = .string(message) }
        send(.object(o))
    }
}
