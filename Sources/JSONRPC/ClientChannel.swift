public import KindredCore
import Dispatch
import Synchronization

/// What came back from a request the server sent to its client.
public enum ClientReply: Sendable, Equatable {
    case result(JSONValue)
    /// The client answered with an error object.
    case error(code: Int64, message: String)
    /// No answer within the timeout (the server sent `$/cancelRequest` for it).
    case timedOut
    /// The request the server was working on was cancelled while it waited.
    case cancelled
    /// The client's input has ended: nothing can be answered any more.
    case closed
}

/// Requests from the server to the client (as a language server asks its editor), for handlers.
public protocol ClientChannel: Sendable {
    /// The `capabilities` the client declared in `initialize` (nil when it declared none).
    var clientCapabilities: JSONValue? { get }
    /// Sends `method` with `params` to the client and waits for its response, at most `timeout`
    /// seconds, polling `isCancelled`. Other requests keep being read and served meanwhile.
    func request(_ method: String, _ params: JSONValue, timeout: Double, isCancelled: () -> Bool) -> ClientReply
}

/// One outstanding server→client request (the JSON-RPC server's and the MCP server's).
public final class ReplyWaiter: Sendable {
    private let reply = Mutex<ClientReply?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    public init() {}

    public func deliver(_ r: ClientReply) {
        let first = reply.withLock { current -> Bool in
            guard current == nil else { return false }
            current = r
            return true
        }
        if first { signal.signal() }
    }

    /// Waits until delivered or `deadline`, checking `isCancelled` every 50 ms.
    public func wait(until deadline: DispatchTime, isCancelled: () -> Bool) -> ClientReply? {
        while true {
            if let r = reply.withLock({ $0 }) { return r }
            if isCancelled() { return .cancelled }
            let now = DispatchTime.now()
            if now >= deadline { return nil }
            let step = min(deadline, now + .milliseconds(50))
            _ = signal.wait(timeout: step)
        }
    }
}

extension OutgoingMessage {
    /// A request from the server (its id is a string the server chose).
    public static func request(id: RequestID, _ method: String, _ params: JSONValue) -> [UInt8] {
        var out = Array(#"{"jsonrpc":"2.0","id":"#.utf8)
        id.write(to: &out)
        out.append(contentsOf: #","method":"#.utf8)
        JSONWriter.write(.string(method), to: &out)
        out.append(contentsOf: #","params":"#.utf8)
        JSONWriter.write(params, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
