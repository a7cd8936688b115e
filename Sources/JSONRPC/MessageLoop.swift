import KindredCore
import Synchronization

/// What a connection's messages go to: `Server` (Kindred's JSON-RPC methods) and `MCPServer` (the
/// Model Context Protocol) each answer them on the one `MessageLoop`.
public protocol MessageDispatcher: AnyObject, Sendable {
    /// The error an array of messages is answered with, or nil when batches are accepted.
    var batchRefusal: ResponseError? { get }
    /// Routes one message; `reply` is called exactly once (with nil when nothing is answered).
    func dispatch(_ message: IncomingMessage, reply: @escaping @Sendable ([UInt8]?) -> Void)
    /// Whether reading stops after the message just dispatched (`exit`).
    var stopsReading: Bool { get }
    /// Called once input ended or reading stopped: waits for the work still running and returns the
    /// process exit code.
    func finish() -> Int32
}

/// The reading side of a JSON-RPC connection and its one writer: frames from a blocking byte
/// source, each parsed (keeping the text of numeric ids) and classified, single messages and
/// batches handed to a dispatcher; framing errors answered here. Output goes in the framing the
/// first frame used, or the one configured.
public final class MessageLoop: Sendable {
    private let framing: Mutex<Framing?>
    private let configured: Framing?
    private let maxMessageBytes: Int
    private let sink: any MessageSink

    public init(framing: Framing?, maxMessageBytes: Int, sink: any MessageSink) {
        self.configured = framing
        self.framing = Mutex(framing)
        self.maxMessageBytes = maxMessageBytes
        self.sink = sink
    }

    /// Sends one message (JSON bytes) in the connection's framing.
    public func send(_ json: [UInt8]) {
        sink.write(FrameEncoder.encode(json, framing: framing.withLock { $0 } ?? .ndjson))
    }

    /// Reads until end of input or until `dispatcher` stops reading, then returns its `finish()`.
    public func run(read: () -> [UInt8]?, dispatcher: any MessageDispatcher) -> Int32 {
        var decoder = FrameDecoder(framing: configured, maxMessageBytes: maxMessageBytes)
        outer: while let chunk = read() {
            decoder.feed(chunk)
            while let frame = decoder.next() {
                if let detected = decoder.framing { framing.withLock { if $0 == nil { $0 = detected } } }
                handle(frame, dispatcher)
                if dispatcher.stopsReading { break outer }
            }
        }
        return dispatcher.finish()
    }

    func handle(_ frame: Frame, _ dispatcher: any MessageDispatcher) {
        switch frame {
        case .tooLarge(let size):
            send(OutgoingMessage.error(id: .null, ResponseError(
                code: .invalidRequest, message: "message of \(size) bytes exceeds the limit of \(maxMessageBytes) bytes",
                data: ["size": .int(Int64(size)), "limit": .int(Int64(maxMessageBytes))])))
        case .badHeader(let reason):
            send(OutgoingMessage.error(id: .null, .parseError(reason)))
        case .message(let bytes):
            let document: JSONDocument
            do { document = try JSONParser.parseDocument(bytes, keepingNumberTextOf: "id") } catch {
                send(OutgoingMessage.error(id: .null, .parseError(error.description)))
                return
            }
            guard case .array(let items) = document.value else {
                dispatcher.dispatch(IncomingMessage.classify(document.value) { document.numberText[$0] }) { [self] response in
                    if let response { send(response) }
                }
                return
            }
            if let refusal = dispatcher.batchRefusal {
                send(OutgoingMessage.error(id: .null, refusal))
            } else if items.isEmpty {
                send(OutgoingMessage.error(id: .null, .invalidRequest("empty batch")))
            } else {
                let collector = BatchCollector(count: items.count) { [self] responses in
                    if !responses.isEmpty { send(OutgoingMessage.batch(responses)) }
                }
                for (i, item) in items.enumerated() {
                    dispatcher.dispatch(IncomingMessage.classify(item) { document.numberText[[.index(i)] + $0] }) { collector.set(i, $0) }
                }
            }
        }
    }
}

/// Collects the responses of one batch and sends them together, in request order.
final class BatchCollector: Sendable {
    private struct S { var slots: [[UInt8]?]; var remaining: Int }
    private let s: Mutex<S>
    private let done: @Sendable ([[UInt8]]) -> Void

    init(count: Int, done: @escaping @Sendable ([[UInt8]]) -> Void) {
        s = Mutex(S(slots: Array(repeating: nil, count: count), remaining: count))
        self.done = done
    }

    func set(_ i: Int, _ v: [UInt8]?) {
        let finished: [[UInt8]]? = s.withLock { st in
            st.slots[i] = v
            st.remaining -= 1
            return st.remaining == 0 ? st.slots.compactMap { $0 } : nil
        }
        if let finished { done(finished) }
    }
}
