import Foundation
import Dispatch
import Synchronization
import Testing
import KindredCore
@testable import JSONRPC

/// Captures what the server writes.
final class CapturingSink: MessageSink {
    let frames = Mutex<[[UInt8]]>([])
    func write(_ bytes: [UInt8]) { frames.withLock { $0.append(bytes) } }

    /// Parsed messages (ndjson framing).
    var messages: [JSONValue] {
        frames.withLock { $0 }.flatMap { f in
            String(decoding: f, as: UTF8.self).split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        }
    }
}

/// Runs a server over the given input lines and returns everything it wrote, and its exit code.
func converse(_ lines: [String], register: (Server) -> Void = { _ in }) -> ([JSONValue], Int32) {
    let sink = CapturingSink()
    let server = Server(options: .init(framing: nil, maxMessageBytes: 4096), sink: sink,
                        initialize: { _, _ in ["serverInfo": ["name": "test"]] }, onShutdown: {})
    server.register("echo", kind: .read) { p, _ in p ?? .null }
    server.register("fail", kind: .read) { _, _ in throw ResponseError.invalidParams(field: "x", reason: "bad") }
    register(server)
    var chunks = lines.map { Array(($0 + "\n").utf8) }
    let code = server.run { chunks.isEmpty ? nil : chunks.removeFirst() }
    return (sink.messages, code)
}

func response(_ ms: [JSONValue], id: JSONValue) -> JSONValue? {
    ms.first { $0["id"] == id && ($0["result"] != nil || $0["error"] != nil) }
}

let initialize = #"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{}}"#

@Suite struct ServerTests {
    @Test func requestsBeforeInitializeAreRefused() {
        let (ms, _) = converse([#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#, initialize, #"{"jsonrpc":"2.0","id":2,"method":"echo","params":[5]}"#])
        #expect(response(ms, id: 1)?["error"]?["code"] == .int(-32002))
        #expect(response(ms, id: 2)?["result"] == .array([.int(5)]))
    }

    @Test func idsKeepTheirJSONType() {
        let (ms, _) = converse([initialize,
            #"{"jsonrpc":"2.0","id":"1","method":"echo","params":{"s":1}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"n":1}}"#,
            #"{"jsonrpc":"2.0","id":0,"method":"echo","params":{"z":1}}"#])
        #expect(response(ms, id: "1")?["result"] == ["s": 1])
        #expect(response(ms, id: 1)?["result"] == ["n": 1])
        #expect(response(ms, id: 0)?["result"] == ["z": 1])
    }

    @Test func parseErrorsAndInvalidRequestsKeepTheServerServing() {
        let (ms, _) = converse([initialize, "{nope", #"{"jsonrpc":"1.0","id":3,"method":"echo"}"#, #"{"jsonrpc":"2.0","id":{},"method":"echo"}"#,
                                #"{"jsonrpc":"2.0","id":4,"method":"missing"}"#, #"{"jsonrpc":"2.0","id":5,"method":"echo","params":[1]}"#])
        #expect(ms.contains { $0["id"] == .null && $0["error"]?["code"] == .int(-32700) })
        #expect(response(ms, id: 3)?["error"]?["code"] == .int(-32600))
        #expect(ms.contains { $0["id"] == .null && $0["error"]?["code"] == .int(-32600) })
        #expect(response(ms, id: 4)?["error"]?["code"] == .int(-32601))
        #expect(response(ms, id: 5)?["result"] == [1])
    }

    @Test func batchesAnswerInOrderWithoutNotifications() throws {
        let (ms, _) = converse([initialize,
            #"[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":2,"method":"fail"},5]"#,
            "[]", #"[{"jsonrpc":"2.0","method":"initialized"}]"#])
        let batch = try #require(ms.first { $0.arrayValue != nil }?.arrayValue)
        #expect(batch.count == 3)
        #expect(batch[0]["id"] == 1)
        #expect(batch[1]["error"]?["data"]?["field"] == "x")
        #expect(batch[2]["error"]?["code"] == .int(-32600))
        #expect(ms.filter { $0.arrayValue != nil }.count == 1)
        #expect(ms.contains { $0["error"]?["message"]?.stringValue?.contains("empty batch") == true })
    }

    @Test func notificationsAndResponsesAreNeverAnswered() {
        let (ms, _) = converse([initialize, #"{"jsonrpc":"2.0","method":"echo","params":[1]}"#, #"{"jsonrpc":"2.0","id":77}"#,
                                #"{"jsonrpc":"2.0","id":78,"result":null}"#])
        #expect(ms.count == 1)
    }

    @Test func shutdownThenExitEndsWithZeroAndLaterRequestsAreRefused() {
        let (ms, code) = converse([initialize, #"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#,
                                   #"{"jsonrpc":"2.0","id":2,"method":"echo"}"#, #"{"jsonrpc":"2.0","method":"exit"}"#,
                                   #"{"jsonrpc":"2.0","id":3,"method":"echo"}"#])
        #expect(response(ms, id: 1)?["result"] == .null)
        #expect(response(ms, id: 2)?["error"]?["code"] == .int(-32600))
        #expect(response(ms, id: 3) == nil)
        #expect(code == 0)
    }

    @Test func exitWithoutShutdownIsCodeOne() {
        let (_, code) = converse([initialize, #"{"jsonrpc":"2.0","method":"exit"}"#])
        #expect(code == 1)
    }

    @Test func oversizedMessageIsRefusedAndTheNextOneServed() {
        let big = #"{"jsonrpc":"2.0","id":1,"method":"echo","params":[""# + String(repeating: "x", count: 5000) + #""]}"#
        let (ms, _) = converse([initialize, big, #"{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}"#])
        #expect(ms.contains { $0["error"]?["data"]?["limit"] == .int(4096) })
        #expect(response(ms, id: 2)?["result"] == [2])
    }

    @Test func cancelOvertakesQueuedWork() {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let (ms, _) = converse([initialize,
            #"{"jsonrpc":"2.0","id":1,"method":"slowWrite"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]}"#,
            #"{"jsonrpc":"2.0","method":"$\/cancelRequest","params":{"id":2}}"#,
            #"{"jsonrpc":"2.0","method":"release"}"#]) { server in
            server.register("slowWrite", kind: .write) { _, _ in
                started.signal()
                gate.wait()
                return "done"
            }
            server.register("release", kind: .read) { _, _ in .null }
            // Release the write once the cancel has been read (the reader hands lines over in order).
            // A plain thread, so the release never waits for a dispatch worker.
            let releaser = Thread {
                started.wait()
                Thread.sleep(forTimeInterval: 0.3)
                gate.signal()
            }
            releaser.start()
        }
        #expect(response(ms, id: 1)?["result"] == "done")
        #expect(response(ms, id: 2)?["error"]?["code"] == .int(-32800))
    }

    @Test func runningReadSeesCancellationThroughItsToken() {
        let (ms, _) = converse([initialize, #"{"jsonrpc":"2.0","id":"long","method":"loop"}"#,
                                #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"long"}}"#]) { server in
            server.register("loop", kind: .read) { _, ctx in
                for _ in 0..<2000 {
                    try ctx.checkCancelled()
                    usleepMillis(5)
                }
                return "finished"
            }
        }
        #expect(response(ms, id: "long")?["error"]?["code"] == .int(-32800))
    }

    @Test func progressIsSentOnlyWithAWorkDoneToken() {
        let (ms, _) = converse([initialize, #"{"jsonrpc":"2.0","id":1,"method":"work","params":{"workDoneToken":"t1"}}"#,
                                #"{"jsonrpc":"2.0","id":2,"method":"work","params":{}}"#]) { server in
            server.register("work", kind: .read) { _, ctx in
                ctx.progress("begin", title: "Working", percentage: 0)
                ctx.progress("end")
                ctx.log(.info, "worked")
                return .null
            }
        }
        let progress = ms.filter { $0["method"] == "$/progress" }
        #expect(progress.map { $0["params"]?["value"]?["kind"] } == ["begin", "end"])
        #expect(progress.allSatisfy { $0["params"]?["token"] == "t1" })
        #expect(ms.filter { $0["method"] == "window/logMessage" }.count == 2)
    }
}

func usleepMillis(_ ms: Int) {
    let deadline = DispatchTime.now() + .milliseconds(ms)
    while DispatchTime.now() < deadline {}
}
