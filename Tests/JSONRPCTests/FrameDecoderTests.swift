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

    static let badHeaders: [(String, String)] = [
        ("Content-Type: x\r\n\r\n", "missing Content-Length"),
        ("Content-Length: -5\r\n\r\n", "invalid Content-Length"),
        ("Content-Length: abc\r\n\r\n", "invalid Content-Length"),
        ("Content-Length: 1 2\r\n\r\n", "invalid Content-Length"),
        ("Content-Length: 0x10\r\n\r\n", "invalid Content-Length"),
        ("Content-Length: 99999999999999999999999\r\n\r\n{}", "out of range"),
        ("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "conflicting Content-Length"),
        ("Content-Length 2\r\n\r\n{}", "without ':'"),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\r\n", "JSON without a Content-Length"),
        ("\u{1}\u{2}garbage: yes\r\n", "malformed header name"),
        ("@@@@ \u{7f}\r\n\r\n\r\n", "without ':'"),
    ]

    @Test(arguments: badHeaders, [1, 3, 1000])
    func badHeaderIsAnsweredOnceThenTheNextContentLengthLineIsServed(_ bad: (String, String), chunk: Int) throws {
        let good = "{\"ok\":1}"
        let input = "Content-Length: 2\r\n\r\n{}" + bad.0 + "\r\ncontent-LENGTH: \(good.utf8.count)\r\n\r\n\(good)" + "Content-Length: 2\r\n\r\n[]"
        let (fs, _) = frames(input, framing: .lsp, chunk: chunk)
        #expect(fs.count == 4, "\(fs)")
        #expect(fs.first.flatMap(text) == "{}")
        guard fs.count == 4, case .badHeader(let reason) = fs[1] else { Issue.record("expected one bad header, got \(fs)"); return }
        #expect(reason.contains(bad.1), "\(reason)")
        #expect(fs[2...].compactMap(text) == [good, "[]"])
    }

    /// LSP bodies end without a newline, so after a bad header the next `Content-Length:` usually
    /// starts mid-line: it is found wherever it starts, whatever the split.
    @Test(arguments: [1, 2, 5, 1000])
    func badHeaderThenFramesWithoutNewlinesAreServed(chunk: Int) {
        let frame = { (b: String) in "Content-Length: \(b.utf8.count)\r\n\r\n\(b)" }
        let input = "Content-Length: abc\r\n\r\n{\"x\":1}CONTENT-LENGT" + frame("{\"a\":1}") + frame("{\"b\":2}") + frame("[]")
        let (fs, _) = frames(input, framing: .lsp, chunk: chunk)
        guard fs.count == 4, case .badHeader(let reason) = fs[0] else { Issue.record("\(fs)"); return }
        #expect(reason.contains("abc"))
        #expect(fs.dropFirst().compactMap(text) == ["{\"a\":1}", "{\"b\":2}", "[]"])
    }

    @Test func duplicateEqualContentLengthsAreFine() {
        let (fs, _) = frames("Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}", framing: .lsp)
        #expect(fs.compactMap(text) == ["{}"])
    }

    @Test func garbageWithoutNewlinesIsBoundedAndAnsweredOnce() {
        let garbage = String(repeating: "x", count: 50_000)
        var d = FrameDecoder(framing: .lsp, maxMessageBytes: 1 << 20)
        var out: [Frame] = []
        for _ in 0..<20 {
            d.feed(Array(garbage.utf8))
            while let f = d.next() { out.append(f) }
            #expect(d.bufferedBytes <= 2 * FrameDecoder.maxHeaderBytes + 50_000)
        }
        d.feed(Array("\nContent-Length: 2\r\n\r\n{}".utf8))
        while let f = d.next() { out.append(f) }
        #expect(out.count == 2)
        if case .badHeader(let r) = out[0] { #expect(r.contains("8192")) } else { Issue.record("\(out)") }
        #expect(text(out[1]) == "{}")
    }

    @Test func longHeaderBlockOfManyLinesIsRefused() {
        let lines = String(repeating: "X-Pad: 0123456789012345678901234567890123456789\r\n", count: 300)
        let (fs, _) = frames(lines + "Content-Length: 2\r\n\r\n{}" + "\r\nContent-Length: 2\r\n\r\n[]", framing: .lsp, chunk: 64)
        // Refused once past 8 KiB; the block's own Content-Length line is where reading resumes.
        #expect(fs.count == 3)
        if case .badHeader(let r) = fs[0] { #expect(r.contains("8192")) } else { Issue.record("\(fs)") }
        #expect(fs.dropFirst().compactMap(text) == ["{}", "[]"])
    }

    @Test func hugeContentLengthIsAnsweredAndItsBodySkipped() {
        let (fs, _) = frames("Content-Length: 100\r\n\r\n" + String(repeating: "z", count: 100) + "Content-Length: 2\r\n\r\n{}", framing: .lsp, max: 10, chunk: 9)
        #expect(fs == [.tooLarge(size: 100), .message(Array("{}".utf8))])
    }

    /// A length above the limit is not trusted: the decoder does not skip the declared bytes (which
    /// would swallow every later message) but resynchronises on the next `Content-Length:`.
    @Test(arguments: [1, 5, 1000])
    func aLengthAboveTheLimitIsRefusedAndTheNextFrameServed(chunk: Int) {
        let next = "Content-Length: 2\r\n\r\n{}"
        for body in ["", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}", "\r\n"] {
            let (fs, _) = frames("Content-Length: 999999999999\r\n\r\n" + body + next + "content-length: 2\r\n\r\n[]",
                                 framing: .lsp, max: 1000, chunk: chunk)
            #expect(fs == [.tooLarge(size: 999_999_999_999), .message(Array("{}".utf8)), .message(Array("[]".utf8))], "\(body)")
        }
    }

    /// A stream of valid frames and bad chunks, split at random points: the same frames come out
    /// whatever the split, each bad chunk costs exactly one error, and every valid frame is served.
    @Test(arguments: 0..<40)
    func randomSplitsGiveTheSameFrames(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed) &* 7919 &+ 1)
        let bad = Self.badHeaders.map { $0.0 } + ["\u{ff}\u{fe}\r\n", "Content-Length: 5\r\nX\r\n", "Content-Length: 999999999999\r\n\r\n"]
        var stream: [UInt8] = []
        var expected: [[UInt8]] = []
        var badCount = 0
        for k in 0..<30 {
            if rng.next() % 3 == 0 {
                var chunk = Array(bad[Int(rng.next() % UInt64(bad.count))].utf8)
                // Random bytes after the bad header, without a newline, then a newline.
                chunk += (0..<Int(rng.next() % 30)).map { _ in UInt8(truncatingIfNeeded: rng.next() % 200 + 20) }.filter { $0 != 0x0A }
                chunk += [0x0D, 0x0A]
                stream += chunk
                badCount += 1
            }
            let body = Array(#"{"id":\#(k),"pad":"\#(String(repeating: "é", count: Int(rng.next() % 40)))"}"#.utf8)
            stream += Array("Content-Length: \(body.count)\r\n".utf8)
            if rng.next() % 2 == 0 { stream += Array("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n".utf8) }
            stream += [0x0D, 0x0A] + body
            expected.append(body)
        }
        var reference: [Frame]?
        for _ in 0..<5 {
            var d = FrameDecoder(framing: .lsp, maxMessageBytes: 1 << 20)
            var out: [Frame] = []
            var i = 0
            while i < stream.count {
                let n = 1 + Int(rng.next() % 64)
                d.feed(stream[i..<min(stream.count, i + n)])
                i += n
                while let f = d.next() { out.append(f) }
            }
            if let reference { #expect(out == reference) } else { reference = out }
            #expect(out.compactMap { if case .message(let b) = $0 { return b } else { return nil } } == expected)
            #expect(out.filter { if case .message = $0 { return false } else { return true } }.count == badCount)
        }
    }

    @Test(arguments: 0..<10)
    func randomSplitsOfNDJSONGiveTheSameLines(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed) + 100)
        var stream: [UInt8] = []
        var expected: [[UInt8]] = []
        for k in 0..<50 {
            let line = Array(#"{"k":\#(k),"s":"\#(String(repeating: "\u{1F600}", count: Int(rng.next() % 10)))"}"#.utf8)
            stream += line + (rng.next() % 2 == 0 ? [0x0A] : [0x0D, 0x0A])
            expected.append(line)
        }
        var d = FrameDecoder(framing: .ndjson, maxMessageBytes: 1 << 20)
        var out: [[UInt8]] = []
        var i = 0
        while i < stream.count {
            let n = 1 + Int(rng.next() % 50)
            d.feed(stream[i..<min(stream.count, i + n)])
            i += n
            while let f = d.next() { if case .message(var b) = f { if b.last == 0x0D { b.removeLast() }; out.append(b) } }
        }
        #expect(out == expected)
    }
}

/// A small deterministic generator for property tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
