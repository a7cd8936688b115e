public import KindredCore
import Synchronization

/// Set when a request is cancelled; long loops poll it, and work that cannot poll (one long SQLite
/// statement) registers a handler that stops it (`whileRegistered`).
public final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)
    private let handlers = Mutex<(next: Int, registered: [Int: @Sendable () -> Void])>((0, [:]))
    public init() {}
    public var isCancelled: Bool { flag.load(ordering: .sequentiallyConsistent) }

    /// Marks the token cancelled and calls the registered handlers (on the calling thread).
    public func cancel() {
        flag.store(true, ordering: .sequentiallyConsistent)
        handlers.withLock { for handler in $0.registered.values { handler() } }
    }

    /// Runs `body` with `onCancel` registered: a cancellation while `body` runs calls it (at once
    /// if the token is already cancelled). Once this returns, `onCancel` is neither running nor
    /// called again — so it may act on a resource that `body` alone holds, such as a connection.
    public func whileRegistered<T, E: Error>(onCancel: @escaping @Sendable () -> Void, _ body: () throws(E) -> T) throws(E) -> T {
        let key = handlers.withLock { state in
            let key = state.next
            state.next += 1
            state.registered[key] = onCancel
            return key
        }
        defer { handlers.withLock { _ = $0.registered.removeValue(forKey: key) } }
        if isCancelled { onCancel() }
        return try body()
    }
    /// Throws `ResponseError.cancelled` once cancelled.
    public func check() throws(ResponseError) { if isCancelled { throw ResponseError.cancelled } }
}

/// `window/logMessage` types (LSP `MessageType`).
public enum LogType: Int, Sendable { case error = 1, warning = 2, info = 3, log = 4 }

/// Work a write hands on to run after it, beside reads and later writes (see `RequestContext.answerLater`).
public final class FollowUp: Sendable {
    private let body = Mutex<(@Sendable (JSONValue) throws -> JSONValue)?>(nil)
    public init() {}
    func set(_ f: @escaping @Sendable (JSONValue) throws -> JSONValue) { body.withLock { $0 = f } }
    func take() -> (@Sendable (JSONValue) throws -> JSONValue)? { body.withLock { let f = $0; $0 = nil; return f } }
}

/// What a handler gets besides its params: cancellation, progress and logging.
public struct RequestContext: Sendable {
    /// The request being handled on this thread (bound by the server around its handler), so that
    /// code far below it — a database connection in use — can stop when it is cancelled.
    @TaskLocal public static var current: RequestContext?

    public let id: JSONValue
    public let method: String
    public let token: CancellationToken
    /// The client's `workDoneToken`, when it asked for progress.
    public let workDoneToken: JSONValue?
    let notify: @Sendable (String, JSONValue) -> Void
    let followUp = FollowUp()
    /// The connection's client, for requests from the server to it (nil when the handler runs
    /// without a server, in process).
    public let client: (any ClientChannel)?

    /// Asks the server to answer this request only after `body` turns the handler's result into the
    /// answer. A write's handler runs in arrival order with nothing beside it; `body` runs after
    /// it, beside reads and later writes, so waiting there (for background work the write started)
    /// stalls no one else.
    public func answerLater(_ body: @escaping @Sendable (JSONValue) throws -> JSONValue) { followUp.set(body) }

    /// What `answerLater` left to do, for a caller that runs handlers without a `Server`.
    public func takeAnswerLater() -> (@Sendable (JSONValue) throws -> JSONValue)? { followUp.take() }

    public init(id: JSONValue, method: String, token: CancellationToken = CancellationToken(), workDoneToken: JSONValue? = nil,
                client: (any ClientChannel)? = nil, notify: @escaping @Sendable (String, JSONValue) -> Void = { _, _ in }) {
        self.client = client
        self.id = id
        self.method = method
        self.token = token
        self.workDoneToken = workDoneToken
        self.notify = notify
    }

    /// The same request, with `client` for requests to the client (an adapter over the connection's own).
    public func with(client: (any ClientChannel)?) -> RequestContext {
        RequestContext(id: id, method: method, token: token, workDoneToken: workDoneToken, client: client, notify: notify)
    }

    public var isCancelled: Bool { token.isCancelled }
    public func checkCancelled() throws(ResponseError) { try token.check() }

    public func log(_ type: LogType, _ message: String) {
        notify("window/logMessage", ["type": .int(Int64(type.rawValue)), "message": .string(message)])
    }

    /// Sends `$/progress` when the request carried a `workDoneToken`; otherwise does nothing.
    public func progress(_ kind: String, title: String? = nil, message: String? = nil, percentage: Int? = nil) {
        guard let workDoneToken else { return }
        var value: JSONObject = ["kind": .string(kind)]
        if let title { value["title"] = .string(title) }
        if let message { value["message"] = .string(message) }
        if let percentage { value["percentage"] = .int(Int64(max(0, min(100, percentage)))) }
        notify("$/progress", ["token": workDoneToken, "value": .object(value)])
    }
}
