import KindredProtocol
public import KindredCore
import Dispatch
import Synchronization

/// The requests a server sent to its client and still waits for (the JSON-RPC server's and the
/// MCP server's): ids `kindred-1`, `kindred-2`, …, each answered once by `deliver`, or `.closed`
/// for all once the client's input has ended.
public final class OutgoingRequests: Sendable {
    private struct State {
        var awaiting: [RequestID: ReplyWaiter] = [:]
        var next: Int64 = 1
        var closed = false
    }
    private let state = Mutex(State())

    public init() {}

    /// Sends `method` through `send` and waits for its response, at most `timeout` seconds
    /// (polling `isCancelled`). A request not answered in time, or no longer wanted, is given to
    /// `cancel`, which tells the client in its protocol's words.
    public func request(_ method: String, _ params: JSONValue, timeout: Double, isCancelled: () -> Bool,
                        send: ([UInt8]) -> Void, cancel: (RequestID) -> Void) -> ClientReply {
        let waiter = ReplyWaiter()
        let id: RequestID? = state.withLock { s in
            guard !s.closed else { return nil }
            let id = RequestID(.string("kindred-\(s.next)"))
            s.next += 1
            s.awaiting[id] = waiter
            return id
        }
        guard let id else { return .closed }
        send(OutgoingMessage.request(id: id, method, params))
        let deadline = DispatchTime.now() + .nanoseconds(Int(max(0, min(timeout, 86_400)) * 1e9))
        let reply = waiter.wait(until: deadline, isCancelled: isCancelled)
        state.withLock { _ = $0.awaiting.removeValue(forKey: id) }
        if let reply, reply != .cancelled { return reply }
        cancel(id)
        return reply ?? .timedOut
    }

    /// Routes a response to the request that waits for it; one nobody waits for is dropped.
    public func deliver(id: RequestID, result: JSONValue, error: JSONValue?) {
        guard let waiter = state.withLock({ $0.awaiting.removeValue(forKey: id) }) else { return }
        if let error {
            let code = error["code"]?.intValue ?? Int64(ErrorCode.internalError.rawValue)
            waiter.deliver(.error(code: code, message: error["message"]?.stringValue ?? "error without a message"))
        } else {
            waiter.deliver(.result(result))
        }
    }

    /// The client's input has ended: every waiting request gets `.closed`, and so does every later one.
    public func close() {
        let waiting = state.withLock { s -> [ReplyWaiter] in
            s.closed = true
            defer { s.awaiting = [:] }
            return Array(s.awaiting.values)
        }
        for w in waiting { w.deliver(.closed) }
    }
}
