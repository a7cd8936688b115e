#if canImport(Glibc)
import Glibc
#endif
import JSONRPC
import KindredCore
import Service
import Foundation
import Synchronization

/// `kindred node`: hosts shards. It sends heartbeats to the shard map, claims free shards (and those
/// of nodes silent for `failoverMs`) up to an even share by revision-checked map writes, and for
/// each shard it leads answers the requests sent to the shard's subject: reads from the shard's
/// store, writes appended to the log first and applied once the log's replicas hold them.
public final class Node: @unchecked Sendable {
    public struct Options: Sendable {
        public var name: String
        public var dataDirectory: String
        /// The shard count recorded when this node creates the cluster (ignored once it exists).
        public var shards: Int = ClusterLayout.defaultShards
        public var heartbeatMs: Int = 1000
        /// A node silent this long is taken as gone: others take its shards.
        public var failoverMs: Int = 5000
        /// Other nodes keeping a copy of each shard, applying its log as it grows.
        public var standbys: Int = 1
        /// A shard's leader snapshots it after this many writes (0: not by count)...
        public var snapshotEvery: Int = 10_000
        /// ...or this long after the last snapshot when it took a write since (0: not by time).
        public var snapshotEveryMs: Int = 600_000
        /// Wait before the first claim, so that nodes started together share the shards.
        public var joinWaitMs: Int = 1500
        public init(name: String, dataDirectory: String) {
            self.name = name
            self.dataDirectory = dataDirectory
        }
    }

    let options: Options
    let connection: NATSConnection
    let map: ShardMap
    /// The map again, on the connection's quick JetStream context: heartbeats wait at most
    /// `NATSConnection.quickWaitMs` for their acknowledgement and are retried at once.
    let beatMap: ShardMap
    /// When this node's heartbeats last landed and last failed (ms since 1970; the failure starts
    /// as the node's start): it judges another node silent only while its own land (`canJudgeSilence`).
    let beats = Mutex<(landed: Int64, failed: Int64)>((0, ShardMap.nowMs()))
    /// The nodes taken as live at the last round that could judge silence.
    let lastLive = Mutex<Set<String>>([])
    /// When the first node the last round saw live turns silent if it sends no heartbeat meanwhile
    /// (ms since 1970): the next round runs then.
    let nextSilence = Mutex<Int64?>(nil)
    let log: WriteLog
    let snapshots: SnapshotStore
    /// False when a server of the cluster is a release that may replay a one-subject purge as a purge
    /// of every subject (`ServerVersions`), or its release cannot be read: the log is then kept whole.
    public let trimsLog: Bool
    public let shardCount: Int
    let makeService: @Sendable (_ path: String) throws -> KindredService
    let say: @Sendable (String) -> Void

    private struct Led {
        let host: ShardHost
        let subscription: Subscription
    }
    private let led = Mutex<[Int: Led]>([:])
    /// The standby copies this node keeps, and the shards it should keep (set by `tick`).
    let standing = Mutex<[Int: ShardHost]>([:])
    let wantedStandbys = Mutex<Set<Int>>([])
    /// Held while a shard's store is opened or moves from standby to leading, so that a node never
    /// opens one shard's file twice.
    let opening = NSLock()
    /// While drained: the shard last handed over, to whom and when (milliseconds since 1970).
    let handing = Mutex<(shard: Int, taker: String, atMs: Int64)?>(nil)
    private let stopping = Atomic<Bool>(false)
    /// Requests routers may cancel, by relay id.
    let relayed = RelayedRequests()
    /// The answers of the writes this node made lately, by relay id.
    let answered = AnsweredWrites()

    public init(connection: NATSConnection, options: Options, makeService: @escaping @Sendable (String) throws -> KindredService,
                say: @escaping @Sendable (String) -> Void) throws {
        guard ClusterLayout.isValidNodeName(options.name) else {
            throw ClusterError("--name must be 1 to 64 letters, digits, '-' or '_', got '\(options.name)'")
        }
        self.options = options
        self.connection = connection
        self.makeService = makeService
        self.say = say
        let replicas = min(3, connection.knownServers)
        // Servers started a moment ago may not have formed their JetStream cluster yet ("no
        // suitable peers for placement"), and a bucket just created has no leader for a moment.
        map = ShardMap(try Self.whileElecting(any: true) { try KeyValue(connection, bucket: ClusterLayout.bucket, replicas: replicas) })
        beatMap = ShardMap(try Self.whileElecting(any: true) { try KeyValue(connection, bucket: ClusterLayout.bucket, replicas: nil, quick: true) })
        log = try Self.whileElecting(any: true) { try WriteLog(connection, replicas: replicas) }
        snapshots = try Self.whileElecting(any: true) { try SnapshotStore(connection, replicas: replicas) }
        trimsLog = Self.mayTrim(connection.serverURLs, say: say)
        // A bucket just created by another node, or one whose stream is electing a leader (a
        // nats-server died), answers "no responders" for a few seconds: asked again meanwhile.
        shardCount = try Self.whileElecting { [map, options] in try map.shardCount(creating: options.shards) }
        try Self.whileElecting { [map, options] in try map.join(node: options.name) }
        try Self.whileElecting { [map, options] in try map.undrain(node: options.name) }
    }

    /// Runs `body` again while it fails with "no responders" or a timeout (with `any`, any failure of
    /// NATS: a node's start), for up to `electionMs`.
    static func whileElecting<T>(any: Bool = false, _ body: () throws -> T) throws -> T {
        let start = ShardMap.nowMs()
        while true {
            do {
                return try body()
            } catch let e as NATSError where (any || e.isNoResponders || e.isTimeout) && ShardMap.nowMs() - start < Self.electionMs {
                usleep(200_000)
            }
        }
    }

    /// Longer than a JetStream leader election (4-9 s).
    static let electionMs: Int64 = 15_000

    /// Whether every server in `urls` announces a release that replays a one-subject purge as one
    /// (says why not when one does not).
    static func mayTrim(_ urls: [String], say: (String) -> Void) -> Bool {
        for url in urls {
            guard let text = ServerVersions.version(of: url), let version = ServerVersions.parse(text) else {
                say("cluster: the release of the nats-server at \(url) cannot be read: the write log is kept whole (snapshots are still taken)")
                return false
            }
            if ServerVersions.isBefore(version, ServerVersions.trimSafe) {
                say("cluster: nats-server \(text) at \(url) replays a purge of one subject as a purge of every subject when a replica restarts "
                    + "(nats-server#4196, fixed in 2.9.18): the write log is kept whole (snapshots are still taken); use nats-server 2.9.18 or later")
                return false
            }
        }
        return true
    }

    /// The shards this node leads now, in order.
    public var ledShards: [Int] { led.withLock { $0.keys.sorted() } }

    /// The hosts of the shards this node leads now, in shard order.
    var ledHosts: [ShardHost] { led.withLock { $0.sorted { $0.key < $1.key }.map(\.value.host) } }

    /// Heartbeats and claims until `stop`. Heartbeats have a thread of their own, so that a long
    /// replay while taking a shard never makes this node look silent.
    public func run() {
        // Back soon enough that no node can have taken this one for silent (its last heartbeat,
        // read before this one's first, is well within `failoverMs`): it serves the shards the map
        // still gives it at once, without waiting for its first round.
        let away = try? map.leaderHeartbeatAge(node: options.name)
        heartbeat()
        let beating = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                usleep(UInt32(heartbeat() ? options.heartbeatMs : Self.heartbeatRetryMs) * 1000)
            }
        }
        beating.start()
        // Requests routers sent while this node's connection was down (or its answers) may be lost:
        // the routers send theirs again.
        let name = Array(options.name.utf8)
        connection.onReconnect { [connection] in try? connection.publish(ClusterLayout.reconnectedSubject, name) }
        let standbys = Thread { [self] in keepStandbys() }
        standbys.start()
        let snapshotting = Thread { [self] in keepSnapshots() }
        snapshotting.start()
        let cancellations = try? listenForCancellations()
        let statusSubscription = try? connection.subscribe(ClusterLayout.nodeSubject(options.name)) { [self] _, reply in
            if let reply { try? connection.publish(reply, Wire.answer(.success(standbyStatus()))) }
        }
        if let away, away < Int64(options.failoverMs) - Self.resumeMarginMs {
            resumeMappedShards()
        }
        usleep(UInt32(options.joinWaitMs) * 1000)
        while !stopping.load(ordering: .relaxed) {
            let started = ShardMap.nowMs()
            do { try tick() } catch { say("cluster: \(error)") }
            // A round every `heartbeatMs`, and one as soon as a node the last round saw live would
            // turn silent (its last heartbeat + `failoverMs`): a dead node's shards are taken then,
            // not up to a round later.
            let regular = started + Int64(options.heartbeatMs)
            let wake = min(regular, nextSilence.withLock { $0 } ?? regular)
            usleep(UInt32(max(Self.leastRoundGapMs, wake - ShardMap.nowMs())) * 1000)
        }
        statusSubscription?.cancel()
        cancellations?.cancel()
        let all = led.withLock { s -> [Led] in defer { s = [:] }; return Array(s.values) }
        for l in all { l.subscription.cancel(); l.host.close() }
        for h in standing.withLock({ s -> [ShardHost] in defer { s = [:] }; return Array(s.values) }) { h.close() }
    }

    public func stop() { stopping.store(true, ordering: .relaxed) }

    /// How far within `failoverMs` a restarted node's last heartbeat must be for it to serve its
    /// shards before its first round.
    static let resumeMarginMs: Int64 = 500

    /// Serves every shard the map gives this node.
    func resumeMappedShards() {
        do {
            for shard in 0..<shardCount where try map.leader(of: shard)?.value == options.name && led.withLock({ $0[shard] == nil }) {
                try lead(shard)
            }
        } catch {
            say("cluster: \(error)")
        }
    }

    /// A round runs this long after the silence it waits for begins, and never sooner than
    /// `leastRoundGapMs` after the last one.
    static let silenceMarginMs: Int64 = 20
    static let leastRoundGapMs: Int64 = 50

    /// A failed heartbeat is tried again after this long, not after a whole `heartbeatMs`.
    static let heartbeatRetryMs = 200

    /// Writes this node's heartbeat; true when it landed. A failure (the bucket's stream electing a
    /// leader, this node's connection moving to another nats-server) is logged once, with the time
    /// it lasted once they land again.
    @discardableResult
    func heartbeat() -> Bool {
        let start = ShardMap.nowMs()
        do {
            try beatMap.heartbeat(node: options.name)
            let failing = beats.withLock { b -> Int64? in
                defer { b.landed = start }
                return b.failed > b.landed && b.landed > 0 ? b.failed : nil
            }
            if failing != nil { say("cluster: heartbeats land again") }
            return true
        } catch {
            let first = beats.withLock { b -> Bool in
                defer { b.failed = ShardMap.nowMs() }
                return b.failed <= b.landed
            }
            if first { say("cluster: heartbeat: \(error); trying again every \(Self.heartbeatRetryMs) ms") }
            return false
        }
    }

    /// Whether this node may take another node's silence as death: its own heartbeats landed
    /// throughout the last `failoverMs` (none failed) and lately. While the bucket cannot take
    /// writes — its stream electing a leader after a nats-server died — or this node's connection
    /// moves to another server, every node's heartbeats fail alike, and that silence is nobody's death.
    var canJudgeSilence: Bool {
        let now = ShardMap.nowMs()
        let b = beats.withLock { $0 }
        return now - b.failed > Int64(options.failoverMs) && now - b.landed < Int64(options.heartbeatMs) + 2000
    }

    /// True when `node` is silent for this node to take its shards: its heartbeat, as the bucket's
    /// stream leader holds it (a replica may answer a read a moment behind), is older than `failoverMs`.
    func confirmedSilent(_ node: String) -> Bool {
        guard let age = try? map.leaderHeartbeatAge(node: node) else { return false }
        return age > Int64(options.failoverMs)
    }
    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// One round: give up shards the map gave to another node; when drained, hand the others over
    /// (`handOver`); else hand back shards until the spread over the live nodes that are not drained
    /// is even (each leads `shards / live` or one more); claim free shards and those of silent nodes
    /// while this node leads fewer than that, or no more than any other live node.
    func tick() throws {
        let nodes = try map.nodes()
        var alive = Set(nodes.filter { ($0.ageMs ?? .max) < Int64(options.failoverMs) }.map(\.name))
        alive.insert(options.name)
        // Silence is judged only while this node's own heartbeats land: until then the nodes live at
        // the last round that could judge stay live (`canJudgeSilence`).
        let judging = canJudgeSilence
        if judging {
            lastLive.withLock { $0 = alive }
        } else {
            let members = Set(nodes.map(\.name))
            alive.formUnion(lastLive.withLock { $0 }.intersection(members))
        }
        let drained = try map.drained()
        let entries = try (0..<shardCount).map { try map.leader(of: $0) }
        for shard in ledShards where entries[shard]?.value != options.name {
            say("shard \(shard): led by another node now; giving it up")
            drop(shard)
        }
        if drained.contains(options.name) {
            wantedStandbys.withLock { $0 = [] }
            return try handOver(entries, to: alive.subtracting(drained))
        }
        let live = alive.subtracting(drained)
        // The map's word is final: a shard it gives this node (after a restart) is served.
        for shard in 0..<shardCount where entries[shard]?.value == options.name && led.withLock({ $0[shard] == nil }) {
            try lead(shard)
        }
        planStandbys(entries, live: live)
        let ages = Dictionary(nodes.map { ($0.name, $0.ageMs ?? .max) }, uniquingKeysWith: { a, _ in a })
        let now = ShardMap.nowMs()
        nextSilence.withLock { next in
            next = nodes.compactMap { n -> Int64? in
                guard n.name != options.name, let age = n.ageMs, age <= Int64(options.failoverMs) else { return nil }
                return now - age + Int64(options.failoverMs) + Self.silenceMarginMs
            }.min()
        }
        let low = shardCount / live.count
        let high = (shardCount + live.count - 1) / live.count
        var counts: [String: Int] = [:]
        for e in entries { if let name = e?.value, live.contains(name) { counts[name, default: 0] += 1 } }
        let fewestElsewhere = live.filter { $0 != options.name }.map { counts[$0] ?? 0 }.min() ?? Int.max
        let mine = ledShards
        // Beyond the high share, or above the low share while another node is below it.
        let excess = mine.count > high ? mine.count - high : (mine.count > low && fewestElsewhere < low ? 1 : 0)
        if excess > 0 {
            for shard in mine.suffix(excess) {
                guard let entry = entries[shard] else { continue }
                drop(shard)
                if try map.release(shard, revision: entry.revision) {
                    say("shard \(shard): handed back to even the spread over \(live.count) nodes")
                }
            }
            return
        }
        for shard in 0..<shardCount {
            if led.withLock({ $0[shard] != nil }) { continue }
            let count = led.withLock { $0.count }
            let underShare = count < low || (count < high && count <= fewestElsewhere)
            var taken = false
            if let entry = entries[shard], !entry.value.isEmpty {
                if entry.value == options.name {
                    taken = true
                } else if !alive.contains(entry.value) {
                    // A silent node's shard: its standby takes it whatever it leads already (the
                    // spread is evened afterwards), the others up to their share and after twice
                    // the silence, while a standby is live.
                    let standby = StandbyPlan.standbys(of: shard, leader: entry.value, nodes: live, count: options.standbys).contains(options.name)
                    guard standby || underShare else { continue }
                    if !standby && waitsForStandby(shard, leader: entry.value, live: live, silentMs: ages[entry.value] ?? .max) { continue }
                    // Only a silence seen while this node's heartbeats land, and confirmed by the
                    // bucket's leader.
                    guard judging, confirmedSilent(entry.value) else { continue }
                    taken = try map.take(shard, node: options.name, revision: entry.revision)
                    if taken { say("shard \(shard): taken over from \(entry.value), silent for \(ages[entry.value].map { "\($0) ms" } ?? "ever")") }
                }
            } else if !underShare {
                continue
            } else if let entry = entries[shard] {
                taken = try map.take(shard, node: options.name, revision: entry.revision)
            } else {
                taken = try map.claim(shard, node: options.name)
            }
            if taken { try lead(shard) }
        }
    }

    /// Opens the shard's store (or takes this node's standby copy), applies the log's tail and
    /// starts answering its subject. Holds `opening` throughout, so the standby loop never opens a
    /// second copy of a shard on its way to leading.
    func lead(_ shard: Int) throws {
        try opening.withLock {
            let standby = standing.withLock { $0.removeValue(forKey: shard) }
            let copyAt = standby?.appliedSequence
            let host = try standby ?? openHost(shard)
            let subscription: Subscription
            do {
                try host.catchUpBetweenRequests()
                subscription = try connection.subscribe(ClusterLayout.requestSubject(shard)) { [self] data, reply in
                    let answer = Wire.answer(host.serve { handle(host, data) })
                    if let reply { try? connection.publish(reply, answer) }
                }
            } catch {
                host.close()
                // Writes may be missing between two it applied: the file starts again from a snapshot.
                if error is LogTrimmed { Self.removeStore(host.service.databasePath) }
                throw error
            }
            led.withLock { $0[shard] = Led(host: host, subscription: subscription) }
            try? connection.publish(ClusterLayout.servingSubject, Array(String(shard).utf8))
            say("shard \(shard): leading (" + (copyAt.map { "from its standby copy at \($0), " } ?? "") + "applied up to \(host.appliedSequence))")
        }
    }

    /// Stops leading the shard when `host` is its store here (the caller holds `opening`); returns
    /// the subscription to end.
    func dropLed(_ shard: Int, ifHost host: ShardHost) -> Subscription? {
        led.withLock { led -> Subscription? in
            guard let l = led[shard], l.host === host else { return nil }
            led[shard] = nil
            return l.subscription
        }
    }

    /// Stops serving the shard: closes its store after the request in progress, then answers the
    /// requests already received with the retryable `shardUnavailable` (the router asks again).
    func drop(_ shard: Int) {
        let dropped = opening.withLock { () -> Led? in
            guard let l = led.withLock({ $0.removeValue(forKey: shard) }) else { return nil }
            l.host.close()
            return l
        }
        dropped?.subscription.drain(timeoutMs: 2000)
    }

    /// Answers one request for a shard this node leads; with a relay, its work reaches the router's
    /// client (`relayContext`).
    func handle(_ host: ShardHost, _ data: [UInt8]) -> Result<JSONValue, ResponseError> {
        do throws(ResponseError) {
            let (method, params, relay) = try Wire.decodeRelayed(data)
            let token = relay.map { relayed.start($0.id) }
            defer { if let relay { relayed.end(relay.id) } }
            switch method {
            case NodeMethods.initialize:
                return .success(host.service.initializeResult(methods: KindredService.methodNames))
            case NodeMethods.shardStatus:
                return .success(["shard": .from(host.shard), "node": .string(options.name), "applied": .int(Int64(host.appliedSequence))])
            default:
                break
            }
            guard let kind = KindredService.methodKind(method) else { throw ResponseError.methodNotFound(method) }
            if kind == .write {
                // The same write sent again by its router (it feared the first sending lost) is
                // answered as the first was, not applied again: the second waited behind the first.
                if let relay, let earlier = answered.answer(relay.id) { return earlier }
                // Cancelled before it is logged, a write is not made; once logged it applies whole.
                try token?.check()
                let outcome = write(host, method, params, context: relay.map { relayContext($0, method: method, token: CancellationToken()) })
                if let relay { answered.keep(relay.id, outcome) }
                return outcome
            }
            let ctx = relay.flatMap { r in token.map { relayContext(r, method: method, token: $0) } }
            return .success(try host.service.call(method, params ?? .object(JSONObject()), context: ctx))
        } catch {
            return .failure(error)
        }
    }

    /// Appends the write to the shard's log (fenced by the last sequence this store applied), then
    /// applies it. A lost acknowledgement is retried under the same message id, which JetStream
    /// stores once.
    func write(_ host: ShardHost, _ method: String, _ params: JSONValue?, context: RequestContext? = nil) -> Result<JSONValue, ResponseError> {
        var rng = SystemRandomNumberGenerator()
        let id = "\(options.name)-\(String(rng.next(), radix: 16))\(String(rng.next(), radix: 16))"
        var attempts = 0
        let start = ShardMap.nowMs()
        while true {
            do {
                let prev = host.appliedSequence
                let entry = Wire.logEntry(method, params, prev: prev)
                let sequence = try log.append(shard: host.shard, entry, expectedLast: prev, id: id)
                return host.apply(sequence, entry, context: context)
            } catch let e where e.isWrongLastSequence && attempts < 3 {
                // The log holds writes this store has not applied: this node's own write whose
                // acknowledgement was lost, or another node's if the shard moved.
                attempts += 1
                do {
                    try host.catchUp()
                } catch let trimmed as LogTrimmed {
                    // (Off this request's thread: discarding waits for the request to end.)
                    Thread { [self] in discard(host, because: trimmed) }.start()
                    return .failure(.shardUnavailable(host.shard, "\(trimmed)"))
                } catch {
                    return .failure(.shardUnavailable(host.shard, "\(error)"))
                }
                guard (try? map.leader(of: host.shard)?.value) == options.name else {
                    return .failure(.shardUnavailable(host.shard, "another node leads it now"))
                }
            } catch let e where (e.isTimeout || e.isNoResponders) && ShardMap.nowMs() - start < Self.appendRetryMs {
                // The log's stream electing a leader (its server died), or this node's connection
                // moving to another server: appended again under the same message id, stored once.
                usleep(100_000)
            } catch {
                return .failure(.shardUnavailable(host.shard, "the write log did not take the write (\(error))"))
            }
        }
    }
}

extension Node {
    /// How long a write whose append timed out (or found no stream leader) is appended again before
    /// it is answered `shardUnavailable`: longer than a JetStream leader election.
    static let appendRetryMs: Int64 = 15_000
}

/// Methods a node answers besides the service's, for the router and `kindred cluster`.
public enum NodeMethods {
    /// The `initialize` result of the store behind a shard (model, dimension, methods).
    public static let initialize = "kindred/initialize"
    /// `{shard, node, applied}`.
    public static let shardStatus = "kindred/shardStatus"
}
