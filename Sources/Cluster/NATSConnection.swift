#if canImport(Glibc)
import Glibc
#endif
internal import CNATS
import Foundation

/// One connection to a NATS cluster (any of the servers listed; it reconnects to another when one
/// goes away) with its JetStream context. Thread-safe, as the C client is.
public final class NATSConnection: @unchecked Sendable {
    let nc: OpaquePointer
    let js: OpaquePointer
    /// A second JetStream context whose calls wait at most `quickWaitMs` (heartbeats, appends: calls
    /// that are retried at once rather than waited for, as after a reconnect that lost their request).
    let quickJS: OpaquePointer
    /// What the C library's callbacks reach: the reconnection handlers and the awaited replies.
    let events: ConnectionEvents
    private let eventsBox: Unmanaged<ConnectionEvents>
    /// The reply subscription of `pendingReply`, made on first use.
    let repliesLock = NSLock()
    var repliesMade: Replies?

    /// - Parameters:
    ///   - urls: `nats://host:port`, comma-separated for several servers of one cluster.
    ///   - apiWaitMs: how long a JetStream API call (an append's acknowledgement) is awaited.
    ///   - quickWaitMs: how long a call on the quick context (`quickJS`) is awaited.
    public init(urls: String, name: String, apiWaitMs: Int64 = 5000, quickWaitMs: Int64 = 1000) throws(NATSError) {
        let events = ConnectionEvents()
        self.events = events
        eventsBox = Unmanaged.passRetained(events)
        var opts: OpaquePointer?
        try NATSError.check(natsOptions_Create(&opts), "nats options")
        defer { natsOptions_Destroy(opts) }
        let list = urls.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
        let strings = CStrings()
        defer { strings.releaseArrays() }
        try NATSError.check(natsOptions_SetServers(opts, strings.array(list), Int32(list.count)), "nats servers '\(urls)'")
        _ = natsOptions_SetName(opts, name)
        _ = natsOptions_SetMaxReconnect(opts, -1)
        _ = natsOptions_SetReconnectWait(opts, 100)
        _ = natsOptions_SetTimeout(opts, 2000)
        // Every publish goes out at once, as `natsConnection_Request`'s own does: a router's requests
        // (sent with a reply subject of its own, `PendingReply`) and a node's answers would otherwise
        // wait for the library's flusher thread.
        _ = natsOptions_SetSendAsap(opts, true)
        let reconnected: natsConnectionHandler = { _, closure in
            guard let closure else { return }
            Unmanaged<ConnectionEvents>.fromOpaque(closure).takeUnretainedValue().didReconnect()
        }
        _ = natsOptions_SetReconnectedCB(opts, reconnected, eventsBox.toOpaque())
        var conn: OpaquePointer?
        let connected = natsConnection_Connect(&conn, opts)
        if connected != NATS_OK {
            eventsBox.release()
            throw NATSError(connected, "connecting to \(urls)")
        }
        nc = conn!
        var contexts: [OpaquePointer] = []
        for wait in [apiWaitMs, quickWaitMs] {
            var jo = jsOptions()
            jsOptions_Init(&jo)
            jo.Wait = wait
            var ctx: OpaquePointer?
            let s = natsConnection_JetStream(&ctx, nc, &jo)
            if s != NATS_OK {
                for c in contexts { jsCtx_Destroy(c) }
                natsConnection_Destroy(nc)
                eventsBox.release()
                throw NATSError(s, "JetStream context")
            }
            contexts.append(ctx!)
        }
        js = contexts[0]
        quickJS = contexts[1]
    }

    deinit {
        repliesMade = nil
        jsCtx_Destroy(js)
        jsCtx_Destroy(quickJS)
        natsConnection_Destroy(nc)
        eventsBox.release()
    }

    /// Calls `handler` (on a thread of the client library) each time the connection is made again
    /// to a server after losing one: core NATS messages in flight then may have been lost.
    public func onReconnect(_ handler: @escaping @Sendable () -> Void) { events.add(handler) }

    /// Flushes what was published and closes the connection.
    public func close() {
        _ = natsConnection_FlushTimeout(nc, 1000)
        natsConnection_Close(nc)
    }

    /// The URLs of the servers the connection knows of (those listed and those the cluster announced).
    public var serverURLs: [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count: Int32 = 0
        guard natsConnection_GetServers(nc, &list, &count) == NATS_OK, let list else { return [] }
        var urls: [String] = []
        for i in 0..<Int(count) {
            if let u = list[i] { urls.append(String(cString: u)) }
            free(list[i])
        }
        free(list)
        return urls
    }

    /// How many servers the connection knows of (those listed and those the cluster announced).
    public var knownServers: Int {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        var count: Int32 = 0
        guard natsConnection_GetServers(nc, &list, &count) == NATS_OK, let list else { return 1 }
        for i in 0..<Int(count) { free(list[i]) }
        free(list)
        return max(1, Int(count))
    }

    /// Sends `data` to `subject` and waits up to `timeoutMs` for the one answer.
    public func request(_ subject: String, _ data: [UInt8], timeoutMs: Int64) throws(NATSError) -> [UInt8] {
        var reply: OpaquePointer?
        let s = data.withUnsafeBytes { natsConnection_Request(&reply, nc, subject, $0.baseAddress, Int32($0.count), timeoutMs) }
        try NATSError.check(s, "request on \(subject)")
        defer { natsMsg_Destroy(reply) }
        return Self.body(reply!)
    }

    public func publish(_ subject: String, _ data: [UInt8]) throws(NATSError) {
        let s = data.withUnsafeBytes { natsConnection_Publish(nc, subject, $0.baseAddress, Int32($0.count)) }
        try NATSError.check(s, "publish on \(subject)")
    }

    /// Calls `handler` with each message's body and reply subject, one message at a time per
    /// subscription, on a thread of the client library.
    public func subscribe(_ subject: String, _ handler: @escaping @Sendable (_ data: [UInt8], _ reply: String?) -> Void) throws(NATSError) -> Subscription {
        let box = Unmanaged.passRetained(HandlerBox(handler))
        var sub: OpaquePointer?
        let callback: kindred_nats_msg_handler = { _, _, msg, closure in
            guard let msg, let closure else { return }
            let box = Unmanaged<HandlerBox>.fromOpaque(closure).takeUnretainedValue()
            let data = NATSConnection.body(msg)
            let reply = natsMsg_GetReply(msg).map { String(cString: $0) }
            natsMsg_Destroy(msg)
            box.handle(data, reply)
        }
        let s = kindred_nats_subscribe(&sub, nc, subject, callback, box.toOpaque())
        if s != NATS_OK {
            box.release()
            throw NATSError(s, "subscribing to \(subject)")
        }
        _ = natsSubscription_SetPendingLimits(sub, 65_536, 256 << 20)
        // The handler is released once the subscription has ended and its last call returned.
        let released: natsOnCompleteCB = { closure in
            if let closure { Unmanaged<HandlerBox>.fromOpaque(closure).release() }
        }
        _ = natsSubscription_SetOnCompleteCB(sub, released, box.toOpaque())
        return Subscription(sub!)
    }

    static func body(_ msg: OpaquePointer) -> [UInt8] {
        let n = Int(natsMsg_GetDataLength(msg))
        guard n > 0, let p = natsMsg_GetData(msg) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }
}

/// A subscription; `cancel` stops its deliveries.
public final class Subscription: @unchecked Sendable {
    let sub: OpaquePointer
    init(_ sub: OpaquePointer) { self.sub = sub }
    public func cancel() { _ = natsSubscription_Unsubscribe(sub) }
    /// Stops taking messages, delivers those already received and waits up to `timeoutMs` for that.
    public func drain(timeoutMs: Int64) {
        guard natsSubscription_Drain(sub) == NATS_OK else { return cancel() }
        _ = natsSubscription_WaitForDrainCompletion(sub, timeoutMs)
    }
    deinit { natsSubscription_Destroy(sub) }
}

/// The Swift handler behind a C callback's closure pointer, kept until the library says the
/// subscription has ended and will call it no more.
final class HandlerBox: @unchecked Sendable {
    let handle: @Sendable ([UInt8], String?) -> Void
    init(_ handle: @escaping @Sendable ([UInt8], String?) -> Void) { self.handle = handle }
}
