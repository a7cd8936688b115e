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
    /// A message longer than the limit: an ndjson line was skipped; an LSP `Content-Length` above the
    /// limit is not trusted to say where the next message starts, so the decoder skips to the next
    /// `Content-Length:`, as after a bad header.
    case tooLarge(size: Int)
    /// Headers that could not be understood; the decoder skips to the next `Content-Length:`, wherever
    /// it starts.
    case badHeader(String)
}

/// Incremental decoder: feed bytes as they arrive, take frames out. Detects the framing from the first
/// non-whitespace byte (`{` or `[` → ndjson, anything else → LSP headers) unless one is forced.
public struct FrameDecoder {
    public private(set) var framing: Framing?
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// ndjson: the rest of an oversized line is being discarded.
    private var discardingLine = false
    /// Where the newline search resumes (bytes before it hold no newline), so a long line is scanned once.
    private var scanned = 0
    /// LSP: after a bad header block or a length above the limit, skipping to the next `Content-Length:`.
    private var resyncing = false

    public init(framing: Framing? = nil, maxMessageBytes: Int) {
        self.framing = framing
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes held and not yet consumed (bounded while skipping garbage).
    public var bufferedBytes: Int { buffer.count - start }

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

    // MARK: LSP headers

    /// Longest header block accepted; a longer one is answered as a bad header and skipped.
    public static let maxHeaderBytes = 8192

    private mutating func nextLSP() -> Frame? {
        if resyncing && !skipToContentLength() { return nil }
        // Skip stray blank lines between messages.
        while start < buffer.count, buffer[start] == 0x0D || buffer[start] == 0x0A { start += 1 }
        var lineStart = start
        var length: Int?
        while true {
            // Header blocks are short: scan at most maxHeaderBytes + 1 bytes of them, from the top each time.
            let limit = min(buffer.count, start + Self.maxHeaderBytes + 1)
            guard let nl = buffer[min(lineStart, limit)..<limit].firstIndex(of: 0x0A) else {
                if buffer.count - start > Self.maxHeaderBytes {
                    return badHeader("header block longer than \(Self.maxHeaderBytes) bytes", resumeAt: limit)
                }
                return nil
            }
            if nl + 1 - start > Self.maxHeaderBytes {
                return badHeader("header block longer than \(Self.maxHeaderBytes) bytes", resumeAt: nl + 1)
            }
            var lineEnd = nl
            if lineEnd > lineStart, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = buffer[lineStart..<lineEnd]
            lineStart = nl + 1
            if line.isEmpty { break }  // end of the header block
            switch Self.header(line) {
            case .failure(let e):
                return badHeader(e.reason, resumeAt: nl + 1)
            case .success(let h):
                guard let value = h.contentLength else { continue }
                if let length, length != value {
                    return badHeader("conflicting Content-Length headers (\(length) and \(value))", resumeAt: nl + 1)
                }
                length = value
            }
        }
        let bodyStart = lineStart
        guard let length else {
            return badHeader("missing Content-Length header", resumeAt: bodyStart)
        }
        if length > maxMessageBytes {
            // Refused; the length may be a lie (`Content-Length: 999999999999` before a short body):
            // skipping that many bytes would swallow every later message, so resynchronise instead.
            start = bodyStart
            scanned = start
            resyncing = true
            return .tooLarge(size: length)
        }
        // Wait for the body; the headers are read again (they are short) once it is here.
        guard buffer.count - bodyStart >= length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        start = bodyStart + length
        scanned = start
        return .message(body)
    }

    private struct Header { var contentLength: Int? }

    /// One header line (without its line ending): `Name: value`, the name an RFC 9110 token.
    private static func header(_ line: ArraySlice<UInt8>) -> Result<Header, HeaderError> {
        if let first = line.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return .failure(HeaderError("JSON without a Content-Length header"))
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            return .failure(HeaderError("header line without ':'"))
        }
        var name = line[line.startIndex..<colon]
        while let l = name.last, l == 0x20 || l == 0x09 { name = name.dropLast() }
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return .failure(HeaderError("malformed header name")) }
        guard name.count == 14, String(decoding: name, as: UTF8.self).lowercased() == "content-length" else { return .success(Header()) }
        var value = line[(colon + 1)...]
        while let f = value.first, f == 0x20 || f == 0x09 { value = value.dropFirst() }
        while let l = value.last, l == 0x20 || l == 0x09 { value = value.dropLast() }
        guard !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return .failure(HeaderError("invalid Content-Length '\(String(decoding: value.prefix(40), as: UTF8.self))'"))
        }
        var n = 0
        for d in value {
            let (m, o1) = n.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(d - 0x30))
            guard !o1, !o2 else { return .failure(HeaderError("Content-Length out of range")) }
            n = a
        }
        return .success(Header(contentLength: n))
    }

    private struct HeaderError: Error { let reason: String; init(_ r: String) { reason = r } }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }

    /// Reports a bad header block and drops everything up to the next `Content-Length:` (any case),
    /// wherever it starts: LSP bodies end without a newline, so the next header usually follows the
    /// previous body on the same line. One bad frame costs one error and later frames are served.
    private mutating func badHeader(_ reason: String, resumeAt: Int) -> Frame {
        start = resumeAt
        scanned = start
        resyncing = true
        return .badHeader(reason)
    }

    private static let contentLengthPrefix = Array("content-length:".utf8)

    /// Drops bytes until `start` is at `Content-Length:`; false when more bytes are needed. While it
    /// waits it keeps at most the bytes of a partial match at the end of the buffer.
    private mutating func skipToContentLength() -> Bool {
        let prefix = Self.contentLengthPrefix
        var i = start
        while i < buffer.count {
            if Self.lower(buffer[i]) == prefix[0] {
                var matched = 1
                while matched < prefix.count, i + matched < buffer.count, Self.lower(buffer[i + matched]) == prefix[matched] { matched += 1 }
                if matched == prefix.count {
                    start = i
                    scanned = start
                    resyncing = false
                    return true
                }
                if i + matched == buffer.count {  // a prefix of it so far: wait for more bytes
                    start = i
                    scanned = start
                    return false
                }
            }
            i += 1
        }
        start = buffer.count
        scanned = start
        return false
    }

    private static func lower(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 0x20 : b }
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
