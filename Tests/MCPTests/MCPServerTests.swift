#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import JSONRPC
import KindredCore
@testable import MCP

final class CollectingSink: MessageSink {
    let lines = Mutex<[String]>([])
    func write(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        lines.withLock { $0 += text.split(separator: "\n").map(String.init) }
    }
}

/// Drives `MCPServer` in process with whole sessions of newline-delimited messages.
@Suite struct MCPServerTests {
    static let echo = Tool(
        name: "echo", title: "Echo", description: "Gives back its `text` argument.",
        inputSchema: ["type": "object", "properties": ["text": ["type": "string"]], "required": ["text"]],
        outputSchema: ["type": "object", "properties": ["text": ["type": "string"]]], readOnly: true) { args, _ in
            guard let text = args["text"]?.stringValue else { return .failure(message: "Invalid argument `text`: is required", details: ["field": "text"]) }
            return .success(["text": .string(text)])
        }

    /// Reports progress 10, 10, 50 and 100, then answers; or, with `wait`, waits until cancelled (5 s at most).
    static let slow = Tool(
        name: "slow", title: "Slow", description: "Takes its time.", inputSchema: ["type": "object"],
        outputSchema: ["type": "object"], readOnly: false) { args, ctx in
            if args["wait"] == true {
                for _ in 0..<5000 where !ctx.isCancelled { usleep(1000) }
                return .success(["cancelled": .bool(ctx.isCancelled)])
            }
            for p in [10, 10, 50, 100] { ctx.progress("report", message: "step", percentage: p) }
            return .success(["done": true])
        }

    static let modernMeta = #""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#

    /// Answers by request id (as JSON text), and every message in order.
    static func session(_ lines: [String]) throws -> (byID: [String: JSONValue], all: [JSONValue]) {
        let sink = CollectingSink()
        let server = MCPServer(info: .init(name: "test", version: "1", instructions: "Use echo."), tools: [echo, slow], sink: sink)
        var input: [[UInt8]] = [Array((lines.joined(separator: "\n") + "\n").utf8)]
        _ = server.run { input.isEmpty ? nil : input.removeFirst() }
        let all = try sink.lines.withLock { $0 }.map { try JSONParser.parse($0) }
        var byID: [String: JSONValue] = [:]
        for m in all { if let id = m["id"] { byID[JSONWriter.string(id)] = m } }
        return (byID, all)
    }

    @Test(arguments: [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("2024-11-05", "2024-11-05"), ("2031-01-01", "2025-11-25")])
    func handshakeNegotiatesTheProtocolVersion(requested: String, answered: String) throws {
        let (r, _) = try Self.session([
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"\#(requested)","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        ])
        #expect(r["1"]?["result"]?["protocolVersion"] == .string(answered))
        #expect(r["1"]?["result"]?["serverInfo"]?["name"] == "test")
        #expect(r["1"]?["result"]?["capabilities"]?["tools"] != nil)
        #expect(r["1"]?["result"]?["resultType"] == nil)
    }

    @Test func handshakeSessionListsAndCallsTools() throws {
        let (r, _) = try Self.session([
            #"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a<b"}}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{\#(Self.modernMeta)}}"#,
            #"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
            #"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
            #"{"jsonrpc":"2.0","id":10,"method":"resources/list"}"#,
        ])
        #expect(r["0"]?["error"]?["code"] == JSONValue.int(-32002))
        let tool = try #require(r["2"]?["result"]?["tools"]?[0])
        #expect(tool["name"] == "echo")
        #expect(tool["inputSchema"]?["type"] == "object")
        #expect(tool["outputSchema"]?["type"] == "object")
        #expect(r["3"]?["result"]?["structuredContent"] == JSONValue.object(["text": "a<b"]))
        #expect(r["3"]?["result"]?["isError"] == false)
        #expect(r["3"]?["result"]?["content"]?[0]?["text"] == #"{"text":"a<b"}"#)
        #expect(r["4"]?["result"]?["isError"] == true)
        #expect(r["4"]?["result"]?["content"]?[0]?["text"]?.stringValue?.hasPrefix("Invalid argument `text`") == true)
        #expect(r["5"]?["error"]?["code"] == JSONValue.int(-32602))
        #expect(r["5"]?["error"]?["data"]?["field"] == "name")
        #expect(r["6"]?["error"]?["data"]?["field"] == "arguments")
        #expect(r["7"]?["error"]?["code"] == JSONValue.int(-32600))
        #expect(r["8"]?["result"] == JSONValue.object([:]))
        #expect(r["9"]?["error"]?["code"] == JSONValue.int(-32600))
        #expect(r["10"]?["error"]?["code"] == JSONValue.int(-32601))
    }

    @Test func statelessSessionNeedsTheEnvelopeInEveryRequest() throws {
        let (r, _) = try Self.session([
            #"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{\#(Self.modernMeta)}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{\#(Self.modernMeta)}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},\#(Self.modernMeta)}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
            #"{"jsonrpc":"2.0","id":8,"method":"ping","params":{\#(Self.modernMeta)}}"#,
        ])
        let discover = try #require(r["1"]?["result"])
        #expect(discover["supportedVersions"] == JSONValue.array(["2026-07-28"]))
        #expect(discover["resultType"] == "complete")
        #expect(discover["capabilities"]?["tools"] != nil)
        #expect(discover["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"] == "test")
        #expect(r["2"]?["result"]?["resultType"] == "complete")
        #expect(r["2"]?["result"]?["cacheScope"] == "public")
        #expect(r["2"]?["result"]?["ttlMs"] == JSONValue.int(0))
        #expect(r["3"]?["result"]?["resultType"] == "complete")
        #expect(r["3"]?["result"]?["structuredContent"] == JSONValue.object(["text": "x"]))
        #expect(r["4"]?["error"]?["code"] == JSONValue.int(-32602))
        #expect(r["5"]?["error"]?["data"]?["field"] == "_meta.io.modelcontextprotocol/clientCapabilities")
        #expect(r["6"]?["error"]?["code"] == JSONValue.int(-32022))
        #expect(r["6"]?["error"]?["data"]?["supported"] == JSONValue.array(["2026-07-28"]))
        #expect(r["6"]?["error"]?["data"]?["requested"] == "2030-01-01")
        #expect(r["7"]?["error"]?["code"] == JSONValue.int(-32022))
        #expect(r["8"]?["error"]?["code"] == JSONValue.int(-32601))
    }

    @Test func malformedMessagesAreAnsweredAndTheSessionGoesOn() throws {
        let (r, all) = try Self.session([
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            #"{not json"#,
            #"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
        ])
        #expect(all.contains { $0["error"]?["code"] == JSONValue.int(-32700) })
        #expect(all.contains { $0["error"]?["code"] == JSONValue.int(-32600) && $0["id"] == JSONValue.null })
        #expect(r["3"]?["error"]?["data"]?["field"] == "name")
        #expect(r["4"]?["result"] == JSONValue.object([:]))
    }

    @Test func aCancelledCallIsNotAnsweredAndTheSessionGoesOn() throws {
        let (r, _) = try Self.session([
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            #"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"slow","arguments":{"wait":true}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c","reason":"user"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}"#,
        ])
        #expect(r[#""c""#] == nil)
        #expect(r["2"]?["result"]?["structuredContent"] == JSONValue.object(["text": "after"]))
    }

    @Test func progressIsReportedWithTheClientsTokenAndAlwaysRises() throws {
        let (r, all) = try Self.session([
            #"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p1",\#(Self.modernMeta.dropFirst(9))}}"#,
        ])
        let progress = all.filter { $0["method"] == "notifications/progress" }
        #expect(progress.map { $0["params"]?["progress"] } == [JSONValue.int(10), .int(50), .int(100)])
        #expect(progress.allSatisfy { $0["params"]?["progressToken"] == "p1" && $0["params"]?["total"] == JSONValue.int(100) })
        #expect(r["1"]?["result"]?["structuredContent"] == JSONValue.object(["done": true]))
        #expect(r["1"]?["result"]?["resultType"] == "complete")
    }
}
