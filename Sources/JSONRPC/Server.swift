public import KindredCore
import Dispatch
import Synchronization

/// How a method's work is scheduled: reads run concurrently, writes one at a time in arrival order
/// (a write waits for earlier reads, later reads wait for it).
public enum MethodKind: Sendable { case read, write }

public typealias MethodHandler = @Sendable (_ params: JSONValue?, _ context: RequestContext) throws -> JSONValue
public typealias NotificationHandler = @Sendable (_ params: JSONValue?) -> Void

/// The JSON-RPC 2.0 server: lifecycle, dispatch, batches, cancellation, progress and logging, on
/// a `MessageLoop`. Knows no domain: methods are registered by the composition root.
public final class Server: ClientChannel, MessageDispatcher {
    public struct Options: Sendable {
        public var framing: Framing?
        public var maxMessageBytes: Int
        /// When set, every response a request's work produced is sent once the writes committed
        /// by the end of that work are durable (a write's own commit; for a read, the writes
        /// before it); the work itself does not wait. Without it, a write's commit must be durable
        /// by the time its handler returns.
        public var durability: (any DurabilityGate)?
        public init(framing: Framing? = nil, maxMessageBytes: Int = 64 << 20, durability: (any DurabilityGate)? = nil) {
            self.framing = framing
            self.maxMessageBytes = maxMessageBytes
            self.durability = durability
        }
    }

    enum Lifecycle { case uninitialized, initialized, shuttingDown }

    struct State {
        var lifecycle = Lifecycle.uninitialized
        var inflight: [RequestID: CancellationToken] = [:]
        var exitCode: Int32?
        /// What the client declared in `initialize`.
        var clientCapabilities: JSONValue?
    }

    private let options: Options
    private let loop: MessageLoop
    private let methods: Mutex<[String: (MethodKind, MethodHandler)]> = Mutex([:])
    private let notifications: Mutex<[String: NotificationHandler]> = Mutex([:])
    private let state: Mutex<State>
    /// Requests sent to the client that wait for its response.
    private let outgoing = OutgoingRequests()
    private let work = DispatchQueue(label: "kindred.rpc.work", attributes: .concurrent)
    /// Where `answerLater` work runs: apart from `work`, so that a write waiting for its barrier does
    /// not wait for it (nor do the reads queued behind that write).
    private let laterWork = DispatchQueue(label: "kindred.rpc.later", attributes: .concurrent)
    private let group = DispatchGroup()
    private let initializeHandler: MethodHandler
    private let shutdownHandler: @Sendable () -> Void

    /// - Parameters:
    ///   - initialize: builds the `initialize` result.
    ///   - onShutdown: called once, after all acknowledged work, when the server stops (close the database here).
    public init(options: Options, sink: any MessageSink, initialize: @escaping MethodHandler, onShutdown: @escaping @Sendable () -> Void) {
        self.options = options
        self.loop = MessageLoop(framing: options.framing, maxMessageBytes: options.maxMessageBytes, sink: sink)
        self.initializeHandler = initialize
        self.shutdownHandler = onShutdown
        self.state = Mutex(State())
    }

    public func register(_ method: String, kind: MethodKind, _ handler: @escaping MethodHandler) {
        methods.withLock { $0[method] = (kind, handler) }
    }

    /// Registers what a notification does (`initialized`, a language server's `textDocument/didSave`).
    /// It runs on the reading thread, in arrival order and only once `initialize` was received:
    /// it must hand anything long to a queue of its own, or no later message is read meanwhile.
    public func onNotification(_ method: String, _ handler: @escaping NotificationHandler) {
        notifications.withLock { $0[method] = handler }
    }

    public var registeredMethods: [String] { methods.withLock { Array($0.keys).sorted() } }

    // MARK: output

    /// Sends one message (JSON bytes) in the connection's framing.
    private func send(_ json: [UInt8]) { loop.send(json) }

    /// Sends a notification to the client (`window/logMessage`, `$/progress`).
    public func notify(_ method: String, _ params: JSONValue) {
        send(OutgoingMessage.notification(method, params))
    }

    public func log(_ type: LogType, _ message: String) {
        notify("window/logMessage", ["type": .int(Int64(type.rawValue)), "message": .string(message)])
    }

    // MARK: input

    /// Reads frames from `read` (a blocking byte source returning nil at end of input) until `exit`
    /// or end of input; returns the process exit code.
    public func run(read: () -> [UInt8]?) -> Int32 { loop.run(read: read, dispatcher: self) }

    public var batchRefusal: ResponseError? { nil }
    public var stopsReading: Bool { state.withLock { $0.exitCode != nil } }

    public func finish() -> Int32 {
        // Nothing can answer the requests sent to the client any more.
        outgoing.close()
        group.wait()
        work.sync(flags: .barrier) {}
        shutdownHandler()
        return state.withLock { $0.exitCode } ?? 0
    }

    /// Routes one message; `reply` is called exactly once (with nil for notifications and responses).
    public func dispatch(_ message: IncomingMessage, reply: @escaping @Sendable ([UInt8]?) -> Void) {
        switch message {
        case let .response(id, result, error):
            outgoing.deliver(id: id, result: result, error: error)
            reply(nil)
        case .invalid(let id, let error):
            reply(OutgoingMessage.error(id: id, error))
        case .cancel(let id):
            state.withLock { $0.inflight[id] }?.cancel()
            reply(nil)
        case .notification(let method, let params):
            handleNotification(method, params)
            reply(nil)
        case .request(let id, let method, let params):
            handleRequest(id: id, method: method, params: params, reply: reply)
        }
    }

    private func handleNotification(_ method: String, _ params: JSONValue?) {
        switch method {
        case "exit":
            state.withLock { $0.exitCode = ($0.lifecycle == .shuttingDown) ? 0 : 1 }
        default:
            // Unknown notifications need no answer; none is acted on before `initialize`.
            guard state.withLock({ $0.lifecycle }) == .initialized, let handler = notifications.withLock({ $0[method] }) else { return }
            handler(params)
        }
    }

    private func handleRequest(id: RequestID, method: String, params: JSONValue?, reply: @escaping @Sendable ([UInt8]?) -> Void) {
        let lifecycle = state.withLock { $0.lifecycle }
        switch (lifecycle, method) {
        case (.shuttingDown, _):
            reply(OutgoingMessage.error(id: id, .invalidRequest("server is shutting down")))
            return
        case (.uninitialized, let m) where m != "initialize":
            reply(OutgoingMessage.error(id: id, .notInitialized))
            return
        default:
            break
        }
        let workDone: JSONValue?
        do {
            try IncomingMessage.checkParamsShape(params)
            workDone = try Self.workDoneToken(params)
        } catch {
            reply(OutgoingMessage.error(id: id, error))
            return
        }
        switch (lifecycle, method) {
        case (.uninitialized, _):
            // Later requests queue behind this one (it is a write), so they may be accepted now.
            state.withLock {
                $0.lifecycle = .initialized
                $0.clientCapabilities = params?["capabilities"]
            }
            schedule(id: id, method: method, params: params, workDone: workDone, kind: .write, reply: reply, initializeHandler)
            return
        case (.initialized, "initialize"):
            reply(OutgoingMessage.error(id: id, .invalidRequest("initialize was already received")))
            return
        case (.initialized, "shutdown"):
            state.withLock { $0.lifecycle = .shuttingDown }
            schedule(id: id, method: method, params: params, workDone: workDone, kind: .write, reply: reply) { _, _ in .null }
            return
        default:
            break
        }
        guard let (kind, handler) = methods.withLock({ $0[method] }) else {
            reply(OutgoingMessage.error(id: id, .methodNotFound(method)))
            return
        }
        schedule(id: id, method: method, params: params, workDone: workDone, kind: kind, reply: reply, handler)
    }

    /// The request's `workDoneToken` (LSP `ProgressToken`): a string or an integer; null is as absent.
    static func workDoneToken(_ params: JSONValue?) throws(ResponseError) -> JSONValue? {
        switch params?["workDoneToken"] {
        case nil, .null?: return nil
        case .string(let s)?: return .string(s)
        case .int(let n)?: return .int(n)
        case let t?:
            let got = t.typeName == "number" ? "a number with a fraction or exponent" : t.typeName
            throw ResponseError.invalidParams(field: "workDoneToken", reason: "must be a string or an integer, got \(got)")
        }
    }

    private func schedule(id: RequestID, method: String, params: JSONValue?, workDone: JSONValue?, kind: MethodKind,
                          reply: @escaping @Sendable ([UInt8]?) -> Void, _ handler: @escaping MethodHandler) {
        let token = CancellationToken()
        state.withLock { $0.inflight[id] = token }
        let ctx = RequestContext(id: id.value, method: method, token: token, workDoneToken: workDone, client: self) { [self] m, p in
            notify(m, p)
        }
        group.enter()
        // What the work produced, sent once the writes it may reveal are durable (see `Options.durability`).
        let answer: @Sendable ([UInt8]) -> Void = { [self] bytes in
            guard let gate = options.durability else { reply(bytes); return }
            group.enter()
            gate.whenDurable(gate.mark()) { [self] problem in
                defer { group.leave() }
                if let problem {
                    reply(OutgoingMessage.error(id: id, .internalError("the write could not be made durable: \(problem)")))
                } else {
                    reply(bytes)
                }
            }
        }
        let job: @Sendable () -> Void = { [self] in
            defer {
                state.withLock { if $0.inflight[id] === token { $0.inflight[id] = nil } }
                group.leave()
            }
            if token.isCancelled {
                reply(OutgoingMessage.error(id: id, .cancelled))
                return
            }
            do {
                let result = try RequestContext.$current.withValue(ctx) { try handler(params, ctx) }
                if let later = ctx.followUp.take() {
                    // Answered from a job of its own, beside reads and later writes.
                    group.enter()
                    laterWork.async { [self] in
                        defer { group.leave() }
                        do {
                            answer(OutgoingMessage.result(id: id, try RequestContext.$current.withValue(ctx) { try later(result) }))
                        } catch let e as ResponseError {
                            answer(OutgoingMessage.error(id: id, e))
                        } catch {
                            answer(OutgoingMessage.error(id: id, .internalError(String(describing: error))))
                        }
                    }
                    return
                }
                answer(token.isCancelled && kind == .read ? OutgoingMessage.error(id: id, .cancelled) : OutgoingMessage.result(id: id, result))
            } catch let e as ResponseError {
                answer(OutgoingMessage.error(id: id, e))
            } catch {
                answer(OutgoingMessage.error(id: id, .internalError(String(describing: error))))
            }
        }
        switch kind {
        case .read: work.async(execute: job)
        case .write: work.async(flags: .barrier, execute: job)
        }
    }
}

// MARK: requests to the client

extension Server {
    public var clientCapabilities: JSONValue? { state.withLock { $0.clientCapabilities } }

    public func request(_ method: String, _ params: JSONValue, timeout: Double, isCancelled: () -> Bool) -> ClientReply {
        outgoing.request(method, params, timeout: timeout, isCancelled: isCancelled, send: { send($0) },
                         cancel: { notify("$/cancelRequest", ["id": $0.value]) })
    }
}
