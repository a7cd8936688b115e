import Testing
@testable import JSONRPC

@Suite struct FrameDecoderTests {
    func frames(_ input: String, framing: Framing? = nil, max: Int = 1 << 20, chunk: Int = 1) -> ([Frame], Framing?) {
        var d = FrameDecoder(framing: framing, maxMessageBytes: max)
        var out: [Frame] = []
        let bytes = Array(input.utf8)
        var i = 0
        while i < bytes.count {
            d.feed(bytes[i..<min(bytes.count, i + chunk)])
            i += chunk
            while let f = d.next() { out.append(f) }
        }
        return (out, d.framing)
    }

    func text(_ f: Frame) -> String? {
        if case .message(let b) = f { return String(decoding: b, as: UTF8.self) }
        return nil
    }

    @Test(arguments: [1, 3, 1000])
    func detectsNDJSONFromTheFirstByte(chunk: Int) {
        let (fs, framing) = frames("\n  {\"a\":1}\n[2]\r\n\n{\"b\":\"x\\ny\"}\n", chunk: chunk)
        #expect(framing == .ndjson)
        #expect(fs.compactMap(text) == ["{\"a\":1}", "[2]\r", "{\"b\":\"x\\ny\"}"])
    }

    @Test(arguments: [1, 7, 1000])
    func detectsLSPHeaders(chunk: Int) {
        let body1 = "{\"id\":1}", body2 = "{\"é\":2}"
        let input = "Content-Length: \(body1.utf8.count)\r\n\r\n\(body1)"
            + "Content-Type: application/vscode-jsonrpc; charset=utf8\r\ncontent-length:\(body2.utf8.count)\r\n\r\n\(body2)"
        let (fs, framing) = frames(input, chunk: chunk)
        #expect(framing == .lsp)
        #expect(fs.compactMap(text) == [body1, body2])
    }

    @Test func oversizedLSPBodyIsSkippedAndTheStreamResynchronises() {
        let big = String(repeating: "x", count: 50)
        let input = "Content-Length: 50\r\n\r\n\(big)Content-Length: 2\r\n\r\n{}"
        let (fs, _) = frames(input, max: 10, chunk: 4)
        #expect(fs == [.tooLarge(size: 50), .message(Array("{}".utf8))])
    }

    @Test func oversizedLineIsSkipped() {
        let input = "{\"a\":\"" + String(repeating: "y", count: 100) + "\"}\n{\"ok\":1}\n"
        let (fs, _) = frames(input, max: 20, chunk: 5)
        #expect(fs.count == 2)
        if case .tooLarge = fs[0] {} else { Issue.record("expected tooLarge, got \(fs[0])") }
        #expect(text(fs[1]) == "{\"ok\":1}")
    }

    @Test func headerWithoutLengthIsReportedThenDecodingContinues() {
        let (fs, _) = frames("Content-Type: x\r\n\r\nContent-Length: 2\r\n\r\n{}", framing: .lsp)
        #expect(fs.count == 2)
        if case .badHeader = fs[0] {} else { Issue.record("expected badHeader") }
        #expect(text(fs[1]) == "{}")
    }

    @Test func forcedFramingWins() {
        let (fs, framing) = frames("{\"a\":1}\n", framing: .lsp)
        #expect(framing == .lsp)
        #expect(fs.compactMap(text).isEmpty)
    }

    @Test func encoderWritesBothFramings() {
        #expect(FrameEncoder.encode(Array("{}".utf8), framing: .ndjson) == Array("{}\n".utf8))
        #expect(FrameEncoder.encode(Array("{}".utf8), framing: .lsp) == Array("Content-Length: 2\r\n\r\n{}".utf8))
    }
}
