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

    /// - Parameter timeoutMs: how long a node's answer is awaited (a node killed while it works
    ///   never answers); then the request is answered `shardUnavailable`.
    public init(connection: NATSConnection, timeoutMs: Int64 = 30_000, retryMs: Int64 = 10_000) throws {
        self.connection = connection
        self.timeoutMs = timeoutMs
        self.retryMs = retryMs
        let map = ShardMap(try KeyValue(connection, bucket: ClusterLayout.bucket, replicas: nil))
        shardCount = try map.shardCount(creating: nil)
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
    /// retries for up to `retryMs`.
    func send(_ shard: Int, _ request: [UInt8], isCancelled: () -> Bool = { false }) throws(ResponseError) -> JSONValue {
        var waited: Int64 = 0
        var pause: Int64 = 50
        while true {
            if isCancelled() { throw ResponseError.cancelled }
            do {
                let answer = try connection.request(ClusterLayout.requestSubject(shard), request, timeoutMs: timeoutMs)
                return try Wire.decodeAnswer(answer)
            } catch let e as NATSError where e.isNoResponders && waited < retryMs {
                usleep(UInt32(pause) * 1000)
                waited += pause
                pause = min(pause * 2, 1000)
            } catch let e as ResponseError where e.code == .shardUnavailable && waited < retryMs {
                usleep(UInt32(pause) * 1000)
                waited += pause
                pause = min(pause * 2, 1000)
            } catch let e as NATSError {
                throw ResponseError.shardUnavailable(shard, e.isNoResponders ? "no node serves it"
                    : e.isTimeout ? "its node did not answer within \(timeoutMs) ms (a write may still have been applied)" : "\(e)")
            } catch let e as ResponseError {
                throw e
            } catch {
                throw ResponseError.internalError("\(error)")
            }
        }
    }
}
