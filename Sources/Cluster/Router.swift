#if canImport(Glibc)
import Glibc
#endif
public import JSONRPC
public import KindredCore
import Service

/// `kindred serve --cluster`: answers today's JSON-RPC by sending each request to the shard that
/// holds its `owner` and relaying the node's answer. Lifecycle, framing, batches and ordering are
/// the local server's; every method is registered with the kind it has in one process, so a write
/// is answered before the requests after it are sent.
public final class Router: Sendable {
    let connection: NATSConnection
    public let shardCount: Int
    let timeoutMs: Int64
    /// How long a request for a shard no node serves is retried before it is answered `shardUnavailable`.
    let retryMs: Int64
    /// A node silent this long is gone: a request in flight on it is sent again.
    let failoverMs: Int64
    let map: ShardMap
    /// Hears the nodes that reconnected (their requests in flight may have been lost) and the shards
    /// a node starts serving (the requests in flight for them are sent again).
    private let reconnections: Subscription?
    private let serving: Subscription?

    /// - Parameter timeoutMs: how long a node's answer is awaited (a node killed while it works
    ///   never answers); then the request is answered `shardUnavailable`.
    /// - Parameter failoverMs: how long the node of a request in flight may be silent before the
    ///   request is sent again (the nodes take its shards after their own `failoverMs`).
    public init(connection: NATSConnection, timeoutMs: Int64 = 30_000, retryMs: Int64 = 10_000, failoverMs: Int64 = 5000) throws {
        self.connection = connection
        self.timeoutMs = timeoutMs
        self.retryMs = retryMs
        self.failoverMs = failoverMs
        map = ShardMap(try KeyValue(connection, bucket: ClusterLayout.bucket, replicas: nil))
        shardCount = try map.shardCount(creating: nil)
        reconnections = try? connection.subscribe(ClusterLayout.reconnectedSubject) { [connection] _, _ in connection.nudgePending() }
        serving = try? connection.subscribe(ClusterLayout.servingSubject) { [connection] data, _ in
            if let shard = Int(String(decoding: data, as: UTF8.self)) { connection.nudgePending(tag: shard) }
        }
    }

    deinit {
        reconnections?.cancel()
        serving?.cancel()
    }

    /// Registers every method of the service as a forward.
    public func register(on server: Server) {
        for method in KindredService.methodNames {
            let kind = KindredService.methodKind(method) ?? .write
            server.register(method, kind: kind) { [self] params, ctx in try forward(method, params, context: ctx) }
        }
    }

    /// The `initialize` result: the service's, as a node gives it (model, dimension), with the cluster's shape.
    public func initializeResult(methods: [String]) -> JSONValue {
        var result = (try? send(0, Wire.request(NodeMethods.initialize, nil))) ?? [
            "serverInfo": ["name": "kindred", "version": .string(KindredService.version)],
            "capabilities": ["framing": ["lsp", "ndjson"]],
        ]
        if case .object(var o) = result, case .object(var caps)? = o["capabilities"] {
            caps["methods"] = .from((methods + ["initialize", "shutdown"]).sorted())
            caps["cluster"] = ["shards": .from(shardCount)]
            o["capabilities"] = .object(caps)
            result = .object(o)
        }
        return result
    }

    /// The shard of the request's owner. Every method but `index/status` and `index/rebuild`
    /// requires one; those two without one are refused (they would span every shard).
    public func shard(of method: String, _ params: JSONValue?) throws(ResponseError) -> Int {
        guard let owner = params?["owner"] else {
            throw ResponseError.invalidParams(field: "owner", reason: "is required by a cluster: each request is sent to the shard of its owner (\(method) without one would span every shard)")
        }
        guard case .string(let name) = owner else {
            throw ResponseError.invalidParams(field: "owner", reason: "must be a string, got \(owner.typeName)")
        }
        return ShardHash.shard(owner: name, shards: shardCount)
    }

    /// Answers one request from the node leading its owner's shard.
    public func forward(_ method: String, _ params: JSONValue?) throws(ResponseError) -> JSONValue {
        try send(try shard(of: method, params), Wire.request(method, params))
    }

    /// Sends a request to a shard's node; while no node serves the shard (it is starting or moving)
    /// retries for up to `retryMs`. A request in flight is sent again at once, without waiting for
    /// `timeoutMs`, when the map moves its shard to another node (a takeover, a drain, a hand-back),
    /// when the node leading it has been silent for `failoverMs` (it died with the request), when a
    /// node starts serving the shard (a takeover, or a node that restarted resuming it), or when
    /// this router's connection or a node's was made again to another nats-server (core NATS may have
    /// lost the request or its answer on the way). Whichever sending answers first is the answer: a
    /// write that landed before its node died is applied again by the new leader, and an upsert of
    /// the same revision changes nothing (answered `unchanged`).
    func send(_ shard: Int, _ request: [UInt8], isCancelled: () -> Bool = { false }) throws(ResponseError) -> JSONValue {
        let subject = ClusterLayout.requestSubject(shard)
        let pending: PendingReply
        do { pending = try connection.pendingReply(tag: shard) } catch { throw ResponseError.shardUnavailable(shard, "\(error)") }
        defer { pending.finish() }
        func resend() throws(ResponseError) {
            do { try pending.send(subject, request) } catch { throw ResponseError.shardUnavailable(shard, "\(error)") }
        }
        // Time spent waiting for a node to serve the shard, and the pause before asking again.
        var waited: Int64 = 0
        var pause: Int64 = 50
        func retryLater(_ reason: @autoclosure () -> String) throws(ResponseError) {
            guard waited < retryMs else { throw ResponseError.shardUnavailable(shard, reason()) }
            if isCancelled() { throw ResponseError.cancelled }
            usleep(UInt32(pause) * 1000)
            waited += pause
            pause = min(pause * 2, Self.retryPauseMs)
        }
        var watch = LeaderWatch()
        try resend()
        var sentAt = ShardMap.nowMs()
        while true {
            let now = ShardMap.nowMs()
            let left = timeoutMs - (now - sentAt)
            if left <= 0 {
                throw ResponseError.shardUnavailable(shard, "its node did not answer within \(timeoutMs) ms (a write may still have been applied)")
            }
            switch pending.next(timeoutMs: min(left, Self.checkEveryMs)) {
            case .answer(let bytes, let attempt)?:
                do throws(ResponseError) {
                    return try Wire.decodeAnswer(bytes)
                } catch where error.code == .shardUnavailable {
                    // An earlier sending's refusal: the later one is still on its way.
                    guard attempt == pending.attempt else { continue }
                    try retryLater(error.message)
                }
            case .noResponders(let attempt)?:
                guard attempt == pending.attempt else { continue }
                try retryLater("no node serves it")
            case .nudged?:
                break
            case nil:
                // Unanswered so far: sent again only when its node is gone or the shard moved.
                guard ShardMap.nowMs() - sentAt >= Self.firstCheckMs, watch.lost(shard, map: map, failoverMs: failoverMs) else { continue }
            }
            try resend()
            sentAt = ShardMap.nowMs()
        }
    }

    /// How often an unanswered request looks at the map, from `firstCheckMs` after its sending on.
    static let checkEveryMs: Int64 = 250
    static let firstCheckMs: Int64 = 250
    /// The longest pause between two askings of a shard no node serves.
    static let retryPauseMs: Int64 = 250
}

/// What an unanswered request knows of its shard's leader: the map entry when it first looked, to
/// tell when the shard moves, and whether it was already sent again because its node fell silent.
struct LeaderWatch {
    private var entry: KeyValue.Entry??
    private var silentNode: String?

    /// True when the request should be sent again: the shard's map entry changed since the last
    /// look, or its node has been silent for `failoverMs` (once per silent node).
    mutating func lost(_ shard: Int, map: ShardMap, failoverMs: Int64) -> Bool {
        let now: KeyValue.Entry?
        do { now = try map.leader(of: shard) } catch { return false }
        defer { entry = .some(now) }
        if let seen = entry, seen?.revision != now?.revision { return true }
        guard let node = now?.value, !node.isEmpty, node != silentNode,
              let age = try? map.heartbeatAge(node: node), age > failoverMs,
              // Confirmed by the bucket's leader (a replica may answer a moment behind).
              let confirmed = try? map.leaderHeartbeatAge(node: node), confirmed > failoverMs else { return false }
        silentNode = node
        return true
    }
}
