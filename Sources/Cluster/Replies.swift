#if canImport(Glibc)
import Glibc
#endif
import CNATS
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
    let prefix: String
    let connection: NATSConnection
    /// What the request is about (a router's: its shard), for nudging only the requests of one.
    public let tag: Int?
    private let condition = NSCondition()
    private var events: [Event] = []
    /// The attempts sent so far (the last one's number).
    public private(set) var attempt = 0

    init(id: UInt64, prefix: String, connection: NATSConnection, tag: Int?) {
        (self.id, self.prefix, self.connection, self.tag) = (id, prefix, connection, tag)
    }

    /// Sends the request (again): a new attempt, answered on its own reply subject.
    public func send(_ subject: String, _ data: [UInt8]) throws(NATSError) {
        attempt += 1
        let reply = "\(prefix).\(id).\(attempt)"
        let s = data.withUnsafeBytes { natsConnection_PublishRequest(connection.nc, subject, reply, $0.baseAddress, Int32($0.count)) }
        try NATSError.check(s, "request on \(subject)")
    }

    /// The next event, waiting up to `timeoutMs` for one (nil when none came).
    public func next(timeoutMs: Int64) -> Event? {
        let deadline = Date(timeIntervalSinceNow: Double(max(0, timeoutMs)) / 1000)
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty {
            if !condition.wait(until: deadline) { break }
        }
        return events.isEmpty ? nil : events.removeFirst()
    }

    func post(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// No more answers are awaited.
    public func finish() { connection.replies?.remove(id) }
}

/// The connection's reply subscription (`_INBOX.ID.*`), made on its first awaited request, handing
/// each answer to the request it answers.
final class Replies: @unchecked Sendable {
    let prefix: String
    private let waiting = Mutex<[UInt64: PendingReply]>([:])
    private let counter = Atomic<UInt64>(0)
    private(set) var subscription: Subscription!

    init(_ connection: NATSConnection) throws(NATSError) {
        var inbox: UnsafeMutablePointer<CChar>?
        try NATSError.check(natsInbox_Create(&inbox), "creating a reply inbox")
        prefix = String(cString: inbox!)
        natsInbox_Destroy(inbox)
        let box = Unmanaged.passRetained(self)
        var sub: OpaquePointer?
        let callback: kindred_nats_msg_handler = { _, _, msg, closure in
            guard let msg, let closure else { return }
            let replies = Unmanaged<Replies>.fromOpaque(closure).takeUnretainedValue()
            let subject = natsMsg_GetSubject(msg).map { String(cString: $0) } ?? ""
            let noResponders = natsMsg_IsNoResponders(msg)
            let data = NATSConnection.body(msg)
            natsMsg_Destroy(msg)
            replies.deliver(subject, data, noResponders: noResponders)
        }
        let s = kindred_nats_subscribe(&sub, connection.nc, prefix + ".*.*", callback, box.toOpaque())
        if s != NATS_OK {
            box.release()
            throw NATSError(s, "subscribing to \(prefix).*.*")
        }
        _ = natsSubscription_SetPendingLimits(sub, 65_536, 256 << 20)
        let released: natsOnCompleteCB = { closure in
            if let closure { Unmanaged<Replies>.fromOpaque(closure).release() }
        }
        _ = natsSubscription_SetOnCompleteCB(sub, released, box.toOpaque())
        subscription = Subscription(sub!)
    }

    func make(_ connection: NATSConnection, tag: Int?) -> PendingReply {
        let id = counter.add(1, ordering: .relaxed).newValue
        let pending = PendingReply(id: id, prefix: prefix, connection: connection, tag: tag)
        waiting.withLock { $0[id] = pending }
        return pending
    }

    func remove(_ id: UInt64) { waiting.withLock { _ = $0.removeValue(forKey: id) } }

    /// Nudges every request awaited now (with `tag`, those with that tag).
    func nudge(tag: Int? = nil) {
        for p in waiting.withLock({ Array($0.values) }) where tag == nil || p.tag == tag { p.post(.nudged) }
    }

    private func deliver(_ subject: String, _ data: [UInt8], noResponders: Bool) {
        // `PREFIX.ID.ATTEMPT`
        let parts = subject.dropFirst(prefix.count + 1).split(separator: ".")
        guard parts.count == 2, let id = UInt64(parts[0]), let attempt = Int(parts[1]),
              let pending = waiting.withLock({ $0[id] }) else { return }
        pending.post(noResponders ? .noResponders(attempt: attempt) : .answer(data, attempt: attempt))
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
