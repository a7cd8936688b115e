/// How messages are delimited on the stream.
public enum Framing: String, Sendable {
    /// LSP base protocol: `Content-Length: N\r\n` headers, a blank line, N bytes of JSON.
    case lsp
    /// One JSON message per line.
    case ndjson
}

/// What the frame decoder produced.
public enum Frame: Equatable, Sendable {
    case message([UInt8])
    /// A message longer than the limit was skipped; the stream is back in step.
    case tooLarge(size: Int)
    /// Headers that could not be understood; the decoder skipped to the next header block.
    case badHeader(String)
}

/// Incremental decoder: feed bytes as they arrive, take frames out. Detects the framing from the first
/// non-whitespace byte (`{` or `[` → ndjson, anything else → LSP headers) unless one is forced.
public struct FrameDecoder {
    public private(set) var framing: Framing?
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of an oversized body (LSP) or line (ndjson) still to discard.
    private var discarding = 0
    private var discardingLine = false
    /// Where the newline search resumes (bytes before it hold no newline), so a long line is scanned once.
    private var scanned = 0

    public init(framing: Framing? = nil, maxMessageBytes: Int) {
        self.framing = framing
        self.maxMessageBytes = maxMessageBytes
    }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if start > 0 && start > buffer.count / 2 {
            buffer.removeFirst(start)
            scanned = max(0, scanned - start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed.
    public mutating func next() -> Frame? {
        if discarding > 0 {
            let n = min(discarding, buffer.count - start)
            start += n
            discarding -= n
            if discarding > 0 { return nil }
        }
        if framing == nil {
            while start < buffer.count, Self.isSpace(buffer[start]) { start += 1 }
            guard start < buffer.count else { return nil }
            framing = (buffer[start] == UInt8(ascii: "{") || buffer[start] == UInt8(ascii: "[")) ? .ndjson : .lsp
        }
        switch framing! {
        case .ndjson: return nextLine()
        case .lsp: return nextLSP()
        }
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private mutating func nextLine() -> Frame? {
        while true {
            guard let nl = buffer[max(start, scanned)...].firstIndex(of: 0x0A) else {
                scanned = buffer.count
                let pending = buffer.count - start
                if pending > maxMessageBytes && !discardingLine {
                    discardingLine = true
                    start = buffer.count
                    return .tooLarge(size: pending)
                }
                if discardingLine { start = buffer.count }
                return nil
            }
            let line = buffer[start..<nl]
            start = nl + 1
            scanned = start
            if discardingLine {
                discardingLine = false
                continue
            }
            if line.count > maxMessageBytes { return .tooLarge(size: line.count) }
            if line.allSatisfy(Self.isSpace) { continue }
            return .message(Array(line))
        }
    }

    private mutating func nextLSP() -> Frame? {
        // Skip stray blank lines between messages.
        while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A { start += 1 }
        guard let end = headerEnd() else {
            if buffer.count - start > 8192 {
                start = buffer.count
                return .badHeader("header block longer than 8192 bytes")
            }
            return nil
        }
        let headerText = String(decoding: buffer[start..<end.headerEnd], as: UTF8.self)
        var length: Int?
        for line in headerText.split(omittingEmptySubsequences: true, whereSeparator: { $0.isNewline }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: " \t").lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            if name == "content-length" { length = Int(value) }
        }
        guard let length, length >= 0 else {
            start = end.bodyStart
            return .badHeader("missing or invalid Content-Length")
        }
        if length > maxMessageBytes {
            start = end.bodyStart
            discarding = length
            let n = min(discarding, buffer.count - start)
            start += n
            discarding -= n
            return .tooLarge(size: length)
        }
        guard buffer.count - end.bodyStart >= length else { return nil }
        let body = Array(buffer[end.bodyStart..<(end.bodyStart + length)])
        start = end.bodyStart + length
        return .message(body)
    }

    /// Finds the blank line ending the header block (`\r\n\r\n`, tolerating bare `\n\n`).
    private func headerEnd() -> (headerEnd: Int, bodyStart: Int)? {
        var i = start
        while i < buffer.count {
            if buffer[i] == 0x0A {
                if i + 1 < buffer.count, buffer[i + 1] == 0x0A { return (i, i + 2) }
                if i + 2 < buffer.count, buffer[i + 1] == 0x0D, buffer[i + 2] == 0x0A { return (i, i + 3) }
            }
            i += 1
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// Encodes outgoing messages in the connection's framing.
public enum FrameEncoder {
    public static func encode(_ json: [UInt8], framing: Framing) -> [UInt8] {
        switch framing {
        case .ndjson: return json + [0x0A]
        case .lsp: return Array("Content-Length: \(json.count)\r\n\r\n".utf8) + json
        }
    }
}
