import Foundation
import Dispatch
import Synchronization
import Testing
import KindredCore
@testable import JSONRPC

/// Requests from the server to its client: ids, response routing, timeouts, and serving meanwhile.
@Suite struct ClientRequestTests {
    /// A server whose `ask` handler asks the client `client/q` and answers with what came back.
    func server(_ sink: CapturingSink, timeout: Double) -> Server {
        let server = Server(options: .init(framing: nil, maxMessageBytes: 4096), sink: sink,
                            initialize: { _, _ in ["serverInfo": ["name": "test"]] }, onShutdown: {})
        server.register("echo", kind: .read) { p, _ in p ?? .null }
        server.register("ask", kind: .read) { p, ctx in
            let caps = ctx.client?.clientCapabilities ?? .null
            switch ctx.client!.request("client/q", p ?? .null, timeout: timeout, isCancelled: { ctx.isCancelled }) {
            case .result(let v): return ["answer": v, "caps": caps]
            case let .error(code, message): return ["error": .int(code), "message": .string(message)]
            case .timedOut: return "timed out"
            case .cancelled: return "cancelled"
            case .closed: return "closed"
            }
        }
        return server
    }

    /// Feeds `lines` one at a time; a line that is a function of the messages so far waits until it
    /// can be made (returns non-nil).
    func run(_ server: Server, _ sink: CapturingSink, _ steps: [([JSONValue]) -> String?]) -> Int32 {
        var steps = steps
        return server.run {
            guard !steps.isEmpty else { return nil }
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if let line = steps[0](sink.messages) { steps.removeFirst(); return Array((line + "\n").utf8) }
                usleep(2000)
            }
            return nil
        }
    }

    static func request(_ ms: [JSONValue]) -> JSONValue? { ms.first { $0["method"] == "client/q" && $0["id"] != nil } }

    @Test func aResponseReachesTheRequestThatWaitsWhileOtherRequestsAreServed() {
        let sink = CapturingSink()
        let s = server(sink, timeout: 10)
        _ = run(s, sink, [
            { _ in #"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"capabilities":{"judge":true}}}"# },
            { _ in #"{"jsonrpc":"2.0","id":1,"method":"ask","params":{"q":"why"}}"# },
            { ms in Self.request(ms) == nil ? nil : #"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"meanwhile":true}}"# },
            // The echo is answered while the ask still waits.
            { ms in
                guard response(ms, id: 2) != nil, response(ms, id: 1) == nil, let q = Self.request(ms) else { return nil }
                return #"{"jsonrpc":"2.0","id":"# + JSONWriter.string(q["id"]!) + #","result":{"because":42}}"#
            },
            { ms in response(ms, id: 1) == nil ? nil : "" },
        ])
        let ms = sink.messages
        let q = Self.request(ms)
        #expect(q?["params"] == ["q": "why"] && q?["id"]?.stringValue?.hasPrefix("kindred-") == true)
        #expect(response(ms, id: 1)?["result"] == ["answer": ["because": 42], "caps": ["judge": true]])
        #expect(response(ms, id: 2)?["result"] == ["meanwhile": true])
    }

    @Test func anErrorResponseIsPassedOnAndANoAnswerTimesOutWithACancel() {
        let sink = CapturingSink()
        let s = server(sink, timeout: 0.3)
        _ = run(s, sink, [
            { _ in #"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}"# },
            { _ in #"{"jsonrpc":"2.0","id":1,"method":"ask","params":{}}"# },
            { ms in response(ms, id: 1) == nil ? nil : #"{"jsonrpc":"2.0","id":2,"method":"ask","params":{}}"# },
            { ms in
                guard let q = ms.last(where: { $0["method"] == "client/q" }), ms.filter({ $0["method"] == "client/q" }).count == 2 else { return nil }
                return #"{"jsonrpc":"2.0","id":"# + JSONWriter.string(q["id"]!) + #","error":{"code":-32000,"message":"busy"}}"#
            },
            { ms in response(ms, id: 2) == nil ? nil : "" },
        ])
        let ms = sink.messages
        #expect(response(ms, id: 1)?["result"] == "timed out")
        let first = ms.first { $0["method"] == "client/q" }!["id"]!
        #expect(ms.contains { $0["method"] == "$/cancelRequest" && $0["params"]?["id"] == first })
        #expect(response(ms, id: 2)?["result"] == ["error": -32000, "message": "busy"])
    }

    @Test func theEndOfInputEndsTheWait() {
        let sink = CapturingSink()
        let s = server(sink, timeout: 30)
        _ = run(s, sink, [
            { _ in #"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}"# },
            { _ in #"{"jsonrpc":"2.0","id":1,"method":"ask","params":{}}"# },
            { ms in Self.request(ms) == nil ? nil : "" },
        ])
        #expect(response(sink.messages, id: 1)?["result"] == "closed")
    }
}

extension JSONWriter {
    static func string(_ v: JSONValue) -> String { String(decoding: JSONWriter.bytes(v), as: UTF8.self) }
}
