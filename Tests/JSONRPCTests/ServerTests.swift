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
        let (ms, _) = converse([#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#, initialize, #"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"v":5}}"#])
        #expect(response(ms, id: 1)?["error"]?["code"] == .int(-32002))
        #expect(response(ms, id: 2)?["result"] == ["v": 5])
    }

    @Test(arguments: ["null", "\"x\"", "5", "[1]"])
    func lifecycleDecidesBeforeParams(_ params: String) {
        let (ms, _) = converse([#"{"jsonrpc":"2.0","id":1,"method":"echo","params":\#(params)}"#, initialize,
                                #"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
                                #"{"jsonrpc":"2.0","id":3,"method":"echo","params":\#(params)}"#])
        #expect(response(ms, id: 1)?["error"]?["code"] == .int(-32002))
        #expect(response(ms, id: 2)?["result"] == .null)
        #expect(response(ms, id: 3)?["error"]?["code"] == .int(-32600))
    }

    @Test func registeredNotificationsRunInOrderOnlyWhileInitialized() {
        let seen = Mutex<[JSONValue]>([])
        _ = converse([
            #"{"jsonrpc":"2.0","method":"saved","params":{"n":0}}"#, initialize,
            #"{"jsonrpc":"2.0","method":"saved","params":{"n":1}}"#, #"{"jsonrpc":"2.0","method":"other","params":{"n":2}}"#,
            #"{"jsonrpc":"2.0","method":"saved","params":{"n":3}}"#, #"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
            #"{"jsonrpc":"2.0","method":"saved","params":{"n":4}}"#,
        ]) { server in server.onNotification("saved") { p in seen.withLock { $0.append(p?["n"] ?? .null) } } }
        #expect(seen.withLock { $0 } == [1, 3])
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
                                #"{"jsonrpc":"2.0","id":4,"method":"missing"}"#, #"{"jsonrpc":"2.0","id":5,"method":"echo","params":{"v":1}}"#])
        #expect(ms.contains { $0["id"] == .null && $0["error"]?["code"] == .int(-32700) })
        #expect(response(ms, id: 3)?["error"]?["code"] == .int(-32600))
        #expect(ms.contains { $0["id"] == .null && $0["error"]?["code"] == .int(-32600) })
        #expect(response(ms, id: 4)?["error"]?["code"] == .int(-32601))
        #expect(response(ms, id: 5)?["result"] == ["v": 1])
    }

    @Test func batchesAnswerInOrderWithoutNotifications() throws {
        let (ms, _) = converse([initialize,
            #"[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"v":1}},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":2,"method":"fail"},5]"#,
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
        let (ms, _) = converse([initialize, big, #"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"v":2}}"#])
        #expect(ms.contains { $0["error"]?["data"]?["limit"] == .int(4096) })
        #expect(response(ms, id: 2)?["result"] == ["v": 2])
    }

    @Test func cancelOvertakesQueuedWork() {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let (ms, _) = converse([initialize,
            #"{"jsonrpc":"2.0","id":1,"method":"slowWrite"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"v":2}}"#,
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

/// Runs a server over raw input bytes and returns the raw ndjson lines it wrote.
func converseRaw(_ input: [UInt8], register: (Server) -> Void = { _ in }) -> [String] {
    let sink = CapturingSink()
    let server = Server(options: .init(framing: nil, maxMessageBytes: 4096), sink: sink,
                        initialize: { _, _ in ["serverInfo": ["name": "test"]] }, onShutdown: {})
    server.register("echo", kind: .read) { p, _ in p ?? .null }
    register(server)
    var chunks = [input]
    _ = server.run { chunks.isEmpty ? nil : chunks.removeFirst() }
    return sink.frames.withLock { $0 }.flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").map(String.init) }
}

@Suite struct ServerHostileInputTests {
    @Test func numericIdsComeBackWithTheirOriginalDigits() {
        let ids = ["12345678901234567890123", "1.0", "-0", "1e3", "1E+3", "0.10", "-1.5e-7", "9223372036854775808", "7", "\"7\""]
        let lines = [initialize] + ids.map { #"{"jsonrpc":"2.0","id":\#($0),"method":"echo","params":{"v":1}}"# }
        let out = converseRaw(Array(lines.joined(separator: "\n").utf8 + [0x0A]))
        for id in ids {
            #expect(out.contains(#"{"jsonrpc":"2.0","id":\#(id),"result":{"v":1}}"#), "id \(id): \(out)")
        }
    }

    @Test func verbatimIdsWorkInBatchesAndErrors() {
        let batch = #"[{"jsonrpc":"2.0","id":1.0,"method":"echo","params":{}},{"jsonrpc":"2.0","id":1e400,"method":"nope"},{"jsonrpc":"1.0","id":-0}]"#
        let out = converseRaw(Array((initialize + "\n" + batch + "\n").utf8))
        let line = out.first { $0.hasPrefix("[") } ?? ""
        #expect(line.hasPrefix(#"[{"jsonrpc":"2.0","id":1.0,"result":{}},{"jsonrpc":"2.0","id":1e400,"error":{"code":-32601"#), "\(line)")
        #expect(line.contains(#"{"jsonrpc":"2.0","id":-0,"error":{"code":-32600"#), "\(line)")
    }

    @Test func cancelMatchesTheIdByItsDigits() {
        let gate = DispatchSemaphore(value: 0)
        let lines = [initialize, #"{"jsonrpc":"2.0","id":"w","method":"slowWrite"}"#,
                     #"{"jsonrpc":"2.0","id":1.0,"method":"echo","params":{}}"#,
                     #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}"#,
                     #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1.0}}"#,
                     #"{"jsonrpc":"2.0","method":"release"}"#]
        let out = converseRaw(Array(lines.joined(separator: "\n").utf8 + [0x0A])) { server in
            server.register("slowWrite", kind: .write) { _, _ in gate.wait(); return "done" }
            server.register("release", kind: .read) { _, _ in .null }
            let t = Thread { Thread.sleep(forTimeInterval: 0.3); gate.signal() }
            t.start()
        }
        #expect(out.contains(#"{"jsonrpc":"2.0","id":1.0,"error":{"code":-32800,"message":"request cancelled"}}"#), "\(out)")
        #expect(out.contains(#"{"jsonrpc":"2.0","id":1,"result":{}}"#), "\(out)")
    }

    @Test(arguments: ["null", "\"x\"", "5", "true", "[1]", "[]"])
    func paramsThatAreNotAnObjectAreInvalidParams(_ params: String) throws {
        let (ms, _) = converse([initialize, #"{"jsonrpc":"2.0","id":1,"method":"echo","params":\#(params)}"#,
                                #"{"jsonrpc":"2.0","id":2,"method":"shutdown","params":\#(params)}"#,
                                #"{"jsonrpc":"2.0","id":3,"method":"echo"}"#])
        for id: JSONValue in [1, 2] {
            let e = try #require(response(ms, id: id)?["error"])
            #expect(e["code"] == .int(-32602))
            #expect(e["data"]?["field"] == "params")
            #expect(e["message"]?.stringValue?.contains("must be an object") == true)
        }
        #expect(response(ms, id: 3)?["result"] == .null)
    }

    @Test(arguments: [("true", "boolean"), ("{}", "object"), ("[1]", "array"), ("1.0", "fraction"), ("1e3", "fraction"), ("12345678901234567890123", "fraction")])
    func workDoneTokenMustBeAStringOrAnInteger(_ token: String, _ reason: String) throws {
        let (ms, _) = converse([#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"workDoneToken":\#(token)}}"#,
                                initialize,
                                #"{"jsonrpc":"2.0","id":1,"method":"work","params":{"workDoneToken":\#(token)}}"#]) { server in
            server.register("work", kind: .read) { _, _ in .null }
        }
        for id: JSONValue in ["init", 1] {
            let e = try #require(response(ms, id: id)?["error"], "\(id)")
            #expect(e["code"] == .int(-32602))
            #expect(e["data"]?["field"] == "workDoneToken")
            #expect(e["message"]?.stringValue?.contains(reason) == true, "\(e)")
        }
    }

    @Test func workDoneTokenStringIntegerOrNullAreAccepted() {
        let (ms, _) = converse([initialize,
            #"{"jsonrpc":"2.0","id":1,"method":"work","params":{"workDoneToken":"t"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"work","params":{"workDoneToken":-42}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"work","params":{"workDoneToken":null}}"#]) { server in
            server.register("work", kind: .read) { _, ctx in ctx.progress("begin", title: "w"); return ctx.workDoneToken ?? "none" }
        }
        #expect(response(ms, id: 1)?["result"] == "t")
        #expect(response(ms, id: 2)?["result"] == -42)
        #expect(response(ms, id: 3)?["result"] == "none")
        #expect(Set(ms.filter { $0["method"] == "$/progress" }.compactMap { $0["params"]?["token"] }) == ["t", -42])
    }

    @Test func invalidUTF8IsAParseErrorWithItsOffsetAndIdsDoNotCollide() {
        var input = Array((initialize + "\n").utf8)
        for bad: UInt8 in [0xFF, 0xFE] {
            input += Array(#"{"jsonrpc":"2.0","id":"a"#.utf8) + [bad] + Array(#"","method":"echo","params":{}}"#.utf8) + [0x0A]
        }
        input += Array(#"{"jsonrpc":"2.0","id":2,"method":"echo","params":{"k\#u{e9}":1}}"#.utf8) + [0x0A]
        let out = converseRaw(input)
        let errors = out.filter { $0.contains("-32700") }
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.contains(#""id":null"#) && $0.contains("invalid UTF-8 at byte offset 24") }, "\(errors)")
        #expect(out.contains(#"{"jsonrpc":"2.0","id":2,"result":{"k\#u{e9}":1}}"#))
    }
}

func usleepMillis(_ ms: Int) {
    let deadline = DispatchTime.now() + .milliseconds(ms)
    while DispatchTime.now() < deadline {}
}

@Suite struct CancellationTokenTests {
    @Test func aHandlerRunsOnCancelOnlyWhileRegistered() {
        let token = CancellationToken()
        let calls = Mutex(0)
        token.whileRegistered(onCancel: { calls.withLock { $0 += 1 } }) {
            #expect(calls.withLock { $0 } == 0)
            token.cancel()
            #expect(calls.withLock { $0 } == 1)
        }
        token.cancel()
        #expect(calls.withLock { $0 } == 1)
        // Registered on a token already cancelled: called at once.
        token.whileRegistered(onCancel: { calls.withLock { $0 += 1 } }) {}
        #expect(calls.withLock { $0 } == 2)
    }
}

/// A durability gate that makes nothing durable until `release`.
final class ManualGate: DurabilityGate {
    private struct S { var committed: UInt64 = 0; var synced: UInt64 = 0; var waiting: [(UInt64, @Sendable ((any Error)?) -> Void)] = [] }
    private let s = Mutex(S())
    func commit() { s.withLock { $0.committed += 1 } }
    func mark() -> UInt64 { s.withLock { $0.committed } }
    func whenDurable(_ mark: UInt64, _ body: @escaping @Sendable ((any Error)?) -> Void) {
        let now = s.withLock { st -> Bool in
            if mark <= st.synced { return true }
            st.waiting.append((mark, body))
            return false
        }
        if now { body(nil) }
    }
    func release() {
        let ready = s.withLock { st -> [@Sendable ((any Error)?) -> Void] in
            st.synced = st.committed
            defer { st.waiting = [] }
            return st.waiting.map(\.1)
        }
        for body in ready { body(nil) }
    }
}

@Suite struct DurabilityGateTests {
    /// With a gate, a write's turn ends at its commit: the read after it sees it and the next write
    /// runs, while neither response, nor the read's, is sent before the writes are durable.
    @Test func responsesWaitForDurabilityButTheWorkDoesNot() throws {
        let gate = ManualGate()
        let value = Mutex(0)
        let ran = DispatchSemaphore(value: 0)
        let sink = CapturingSink()
        let server = Server(options: .init(framing: nil, maxMessageBytes: 4096, durability: gate), sink: sink,
                            initialize: { _, _ in ["serverInfo": ["name": "test"]] }, onShutdown: {})
        server.register("put", kind: .write) { _, _ in
            defer { ran.signal() }
            gate.commit()
            return .int(Int64(value.withLock { $0 += 1; return $0 }))
        }
        server.register("peek", kind: .read) { _, _ in
            defer { ran.signal() }
            return .int(Int64(value.withLock { $0 }))
        }
        let before = Mutex<[JSONValue]>([])
        // A plain thread: it waits for the three requests after the first read to have run, looks
        // at what was sent by then, then makes the writes durable.
        let releaser = Thread {
            for _ in 0..<4 { ran.wait() }
            Thread.sleep(forTimeInterval: 0.2)
            before.withLock { $0 = sink.messages }
            gate.release()
        }
        releaser.start()
        var chunks = [initialize, #"{"jsonrpc":"2.0","id":0,"method":"peek"}"#, #"{"jsonrpc":"2.0","id":1,"method":"put"}"#,
                      #"{"jsonrpc":"2.0","id":2,"method":"peek"}"#, #"{"jsonrpc":"2.0","id":3,"method":"put"}"#].map { Array(($0 + "\n").utf8) }
        _ = server.run { chunks.isEmpty ? nil : chunks.removeFirst() }
        let early = before.withLock { $0 }
        // A read with no write before it is answered at once; nothing after the first write was.
        #expect(response(early, id: 0)?["result"] == 0)
        #expect(response(early, id: 1) == nil && response(early, id: 2) == nil && response(early, id: 3) == nil)
        let ms = sink.messages
        #expect(response(ms, id: 1)?["result"] == 1)
        #expect(response(ms, id: 2)?["result"] == 1)
        #expect(response(ms, id: 3)?["result"] == 2)
    }
}
