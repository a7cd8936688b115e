import JSONRPC
import KindredCore
import Synchronization

/// The requests a node works on for routers that may cancel them, by relay id. A cancellation that
/// arrives before its request (it waited behind another of its shard) is kept for a minute and
/// applied when the request comes.
final class RelayedRequests: Sendable {
    private let state = Mutex<(tokens: [String: CancellationToken], early: [String: Int64])>(([:], [:]))
    static let earlyKeptMs: Int64 = 60_000

    /// The token of a request starting now (already cancelled if its cancellation came first).
    func start(_ id: String) -> CancellationToken {
        let token = CancellationToken()
        let early = state.withLock { s -> Bool in
            s.tokens[id] = token
            return s.early.removeValue(forKey: id) != nil
        }
        if early { token.cancel() }
        return token
    }

    func end(_ id: String) { state.withLock { _ = $0.tokens.removeValue(forKey: id) } }

    func cancel(_ id: String) {
        let now = ShardMap.nowMs()
        let token = state.withLock { s -> CancellationToken? in
            if let t = s.tokens[id] { return t }
            s.early = s.early.filter { now - $0.value < Self.earlyKeptMs }
            s.early[id] = now
            return nil
        }
        token?.cancel()
    }
}

/// The answers of the writes a node made lately, by the relay id of their request: a router sends a
/// request in flight again when it may have been lost (its connection or the node's was made again,
/// a node started serving the shard), and the same write reaching the same node again is answered
/// as it was the first time instead of being logged and applied a second time. Kept for
/// `keptMs`, `kept` of them at most; a refusal to be asked again (`shardUnavailable`) is not kept.
final class AnsweredWrites: Sendable {
    private let state = Mutex<[String: (atMs: Int64, outcome: Result<JSONValue, ResponseError>)]>([:])
    static let keptMs: Int64 = 120_000
    static let kept = 4096

    func answer(_ id: String) -> Result<JSONValue, ResponseError>? { state.withLock { $0[id]?.outcome } }

    func keep(_ id: String, _ outcome: Result<JSONValue, ResponseError>) {
        if case .failure(let e) = outcome, e.code == .shardUnavailable { return }
        let now = ShardMap.nowMs()
        state.withLock { s in
            if s.count >= Self.kept { s = s.filter { now - $0.value.atMs < Self.keptMs } }
            if s.count >= Self.kept, let oldest = s.min(by: { $0.value.atMs < $1.value.atMs })?.key { s[oldest] = nil }
            s[id] = (now, outcome)
        }
    }
}

/// A node's way to the client of the router that sent a request: the server's requests to it
/// (`patterns/judge`) travel on the relay subject and the router asks its client.
struct RelayedClient: ClientChannel {
    let connection: NATSConnection
    let subject: String
    let clientCapabilities: JSONValue?

    func request(_ method: String, _ params: JSONValue, timeout: Double, isCancelled: () -> Bool) -> ClientReply {
        let timeoutMs = Int64(max(0, min(timeout, 86_400)) * 1000)
        let message = RelayMessage.request(method: method, params: params, timeoutMs: timeoutMs)
        // The router waits `timeoutMs` for its client; this waits for the router a little longer.
        do {
            return RelayMessage.decodeReply(try connection.request(subject, message.bytes, timeoutMs: timeoutMs + 2000))
        } catch {
            return error.isNoResponders ? .closed : .timedOut
        }
    }
}

extension Node {
    /// Listens for the ids of requests routers' clients cancelled.
    func listenForCancellations() throws -> Subscription {
        try connection.subscribe(Relay.cancelSubject) { [relayed] data, _ in
            relayed.cancel(String(decoding: data, as: UTF8.self))
        }
    }

    /// The context of a request that came with a relay: progress and log messages go to the
    /// router's relay subject, requests to the client through it; `token` is the request's
    /// cancellation (a write's, once logged, is never cancelled: the log applies it whole).
    func relayContext(_ relay: Relay, method: String, token: CancellationToken) -> RequestContext {
        let connection = connection
        let client = relay.subject.map { RelayedClient(connection: connection, subject: $0, clientCapabilities: relay.capabilities) }
        return RequestContext(id: .string(relay.id), method: method, token: token, workDoneToken: relay.workDoneToken, client: client,
                              notify: { method, params in
                                  guard let subject = relay.subject else { return }
                                  try? connection.publish(subject, RelayMessage.notify(method: method, params: params).bytes)
                              })
    }
}
