#if canImport(Glibc)
import Glibc
#endif
internal import CNATS
import Foundation
import Synchronization

/// The reconnection handlers of a connection, called by the C library's reconnected callback.
final class ConnectionEvents: @unchecked Sendable {
    private let handlers = Mutex<[@Sendable () -> Void]>([])
    func add(_ handler: @escaping @Sendable () -> Void) { handlers.withLock { $0.append(handler) } }
    func didReconnect() { for handler in handlers.withLock({ $0 }) { handler() } }
}

/// A request whose answer is awaited while it may be sent again: each sending is an attempt with a
/// reply subject of its own on the connection's reply subscription, and whichever attempt answers
/// first is the answer. What the waiter hears: an answer, a "no responders" (nobody subscribes to
/// the subject right now), or a nudge (the connection, or the node the request went to, reconnected:
/// the request or its answer may have been lost on the way).
public final class PendingReply: @unchecked Sendable {
    public enum Event: Sendable {
        case answer([UInt8], attempt: Int)
        case noResponders(attempt: Int)
        case nudged
    }

    let id: UInt64
    let replies: Replies
    let connection: NATSConnection
    /// What the request is about (a router's: its shard), for nudging only the requests of one.
    public let tag: Int?
    /// Guarded by `replies.lock`.
    fileprivate var events: [Event] = []
    fileprivate let condition = NSCondition()
    /// The attempts sent so far (the last one's number).
    public private(set) var attempt = 0

    init(id: UInt64, replies: Replies, connection: NATSConnection, tag: Int?) {
        (self.id, self.replies, self.connection, self.tag) = (id, replies, connection, tag)
    }

    /// Sends the request (again): a new attempt, answered on its own reply subject.
    public func send(_ subject: String, _ data: [UInt8]) throws(NATSError) {
        attempt += 1
        let reply = "\(replies.prefix).\(id).\(attempt)"
        let s = data.withUnsafeBytes { natsConnection_PublishRequest(connection.nc, subject, reply, $0.baseAddress, Int32($0.count)) }
        try NATSError.check(s, "request on \(subject)")
    }

    /// The next event, waiting up to `timeoutMs` for one (nil when none came).
    public func next(timeoutMs: Int64) -> Event? { replies.next(self, timeoutMs: timeoutMs) }

    /// No more answers are awaited.
    public func finish() { replies.remove(id) }
}

/// The connection's reply subscription (`_INBOX.ID.*.*`), made on its first awaited request. It is
/// read by the waiting requests themselves, one at a time (the reader hands each answer to the
/// request it answers): an answer reaches the request waiting for it straight from the client
/// library's socket thread, as `natsConnection_Request`'s does, without a thread of its own between.
final class Replies: @unchecked Sendable {
    let prefix: String
    let sub: OpaquePointer
    /// Guards `waiting`, `reading` and every request's `events`.
    fileprivate let lock = NSLock()
    private var waiting: [UInt64: PendingReply] = [:]
    /// True while one of the waiting requests reads the subscription.
    private var reading = false
    private var counter: UInt64 = 0
    /// The longest a reader reads before it looks at its own events again (a nudge).
    static let readSliceMs: Int64 = 100

    init(_ connection: NATSConnection) throws(NATSError) {
        var inbox: UnsafeMutablePointer<CChar>?
        try NATSError.check(natsInbox_Create(&inbox), "creating a reply inbox")
        prefix = String(cString: inbox!)
        natsInbox_Destroy(inbox)
        var sub: OpaquePointer?
        try NATSError.check(natsConnection_SubscribeSync(&sub, connection.nc, prefix + ".*.*"), "subscribing to \(prefix).*.*")
        _ = natsSubscription_SetPendingLimits(sub, 65_536, 256 << 20)
        self.sub = sub!
    }

    deinit {
        _ = natsSubscription_Unsubscribe(sub)
        natsSubscription_Destroy(sub)
    }

    func make(_ connection: NATSConnection, tag: Int?) -> PendingReply {
        lock.lock()
        defer { lock.unlock() }
        counter += 1
        let pending = PendingReply(id: counter, replies: self, connection: connection, tag: tag)
        waiting[counter] = pending
        return pending
    }

    func remove(_ id: UInt64) {
        lock.lock()
        waiting[id] = nil
        lock.unlock()
    }

    /// Nudges every request awaited now (with `tag`, those with that tag).
    func nudge(tag: Int? = nil) {
        lock.lock()
        let targets = waiting.values.filter { tag == nil || $0.tag == tag }
        for p in targets { p.events.append(.nudged) }
        lock.unlock()
        for p in targets { Self.wake(p) }
    }

    /// `pending`'s next event within `timeoutMs`: taken from its own events, or read from the
    /// subscription when no other request reads it, or waited for while another does.
    func next(_ pending: PendingReply, timeoutMs: Int64) -> PendingReply.Event? {
        let deadline = ShardMap.nowMs() + max(0, timeoutMs)
        while true {
            lock.lock()
            if !pending.events.isEmpty {
                let event = pending.events.removeFirst()
                lock.unlock()
                return event
            }
            let left = deadline - ShardMap.nowMs()
            if left <= 0 {
                lock.unlock()
                return nil
            }
            if !reading {
                reading = true
                lock.unlock()
                var msg: OpaquePointer?
                let s = natsSubscription_NextMsg(&msg, sub, min(left, Self.readSliceMs))
                if s == NATS_OK, let msg { deliver(msg) }
                // Another waiting request takes over the reading.
                lock.lock()
                reading = false
                let others = Array(waiting.values)
                lock.unlock()
                for p in others where p !== pending { Self.wake(p) }
                continue
            }
            // Another request reads: wait until it hands this one an event or stops reading.
            pending.condition.lock()
            lock.unlock()
            _ = pending.condition.wait(until: Date(timeIntervalSinceNow: Double(min(left, Self.readSliceMs)) / 1000))
            pending.condition.unlock()
        }
    }

    /// Hands a message read from the subscription to the request it answers (`PREFIX.ID.ATTEMPT`).
    private func deliver(_ msg: OpaquePointer) {
        let subject = natsMsg_GetSubject(msg).map { String(cString: $0) } ?? ""
        let noResponders = natsMsg_IsNoResponders(msg)
        let data = NATSConnection.body(msg)
        natsMsg_Destroy(msg)
        let parts = subject.dropFirst(prefix.count + 1).split(separator: ".")
        guard parts.count == 2, let id = UInt64(parts[0]), let attempt = Int(parts[1]) else { return }
        lock.lock()
        guard let target = waiting[id] else { return lock.unlock() }
        target.events.append(noResponders ? .noResponders(attempt: attempt) : .answer(data, attempt: attempt))
        lock.unlock()
        Self.wake(target)
    }

    /// Wakes a waiting request (under its condition's lock: a request between its look at its
    /// events and its wait holds that lock, so the wake-up is never lost).
    private static func wake(_ p: PendingReply) {
        p.condition.lock()
        p.condition.broadcast()
        p.condition.unlock()
    }
}

extension NATSConnection {
    /// A request to await while it may be sent again (`PendingReply`); `finish` it once answered.
    public func pendingReply(tag: Int? = nil) throws(NATSError) -> PendingReply {
        repliesLock.lock()
        defer { repliesLock.unlock() }
        if let r = repliesMade { return r.make(self, tag: tag) }
        let r = try Replies(self)
        repliesMade = r
        onReconnect { [weak r] in r?.nudge() }
        return r.make(self, tag: tag)
    }

    var replies: Replies? {
        repliesLock.lock()
        defer { repliesLock.unlock() }
        return repliesMade
    }

    /// Nudges the requests awaited on this connection now: all of them, or those tagged `tag`.
    public func nudgePending(tag: Int? = nil) { replies?.nudge(tag: tag) }
}
