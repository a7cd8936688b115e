/// A strict RFC 8259 JSON parser over UTF-8 bytes. Integers without fraction or exponent that fit in
/// Int64 become `.int`; every other number becomes `.double`.
///
/// Strings must be well-formed UTF-8 (no overlong forms, no encoded surrogates, no truncated
/// sequences, nothing above U+10FFFF) and `\u` escapes must not leave a surrogate unpaired: such input
/// is refused, never replaced by U+FFFD, so two distinct byte strings never decode to the same value.
/// `\u0000` is a valid character. Nesting deeper than `maxDepth` is refused.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "\(reason) at byte offset \(offset)" }
}

/// One step of a path into a JSON document.
public enum JSONPathElement: Hashable, Sendable {
    case key(String)
    case index(Int)
}

/// A parsed document with the source text of selected numbers (see `JSONParser.parseDocument`).
public struct JSONDocument: Sendable {
    public let value: JSONValue
    /// Source text of numbers whose compact writing (`JSONWriter`) would differ from it, by path.
    public let numberText: [[JSONPathElement]: String]
}

public enum JSONParser {
    public static let maxDepth = 512

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try parseDocument(bytes, keepingNumberTextOf: nil).value
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses `bytes`, and keeps the source text of every number that is the value of a member named
    /// `key` within the first `pathDepth` levels (for example a JSON-RPC `id` of `1.0` or
    /// `12345678901234567890123`, which must be echoed as sent), when writing it back would change it.
    public static func parseDocument(_ bytes: [UInt8], keepingNumberTextOf key: String?, pathDepth: Int = 3) throws(JSONParseError) -> JSONDocument {
        try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) -> JSONDocument in
            var p = Cursor(buf: buf, keepKey: key, pathDepth: pathDepth)
            p.skipWhitespace()
            let v = try p.value(depth: 0)
            p.skipWhitespace()
            guard p.i == buf.count else { throw p.error("unexpected trailing characters") }
            return JSONDocument(value: v, numberText: p.numberText)
        }
    }
}

private struct Cursor {
    let buf: UnsafeBufferPointer<UInt8>
    var i = 0
    /// Number text capture (off when `keepKey` is nil): the path to the value being parsed, while it
    /// is at most `pathDepth` long.
    let keepKey: String?
    let pathDepth: Int
    var path: [JSONPathElement] = []
    var numberText: [[JSONPathElement]: String] = [:]

    init(buf: UnsafeBufferPointer<UInt8>, keepKey: String?, pathDepth: Int) {
        self.buf = buf
        self.keepKey = keepKey
        self.pathDepth = pathDepth
    }

    var tracking: Bool { keepKey != nil && path.count < pathDepth }

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: i, reason: reason) }

    mutating func skipWhitespace() {
        while i < buf.count {
            switch buf[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < JSONParser.maxDepth else { throw error("nesting too deep") }
        guard i < buf.count else { throw error("unexpected end of input") }
        switch buf[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number(depth: depth)
        default: throw error(buf[i] >= 0x80 ? "invalid UTF-8 outside a string" : "unexpected character")
        }
    }

    mutating func literal(_ word: String) throws(JSONParseError) {
        for b in word.utf8 {
            guard i < buf.count, buf[i] == b else { throw error("invalid literal") }
            i += 1
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        i += 1
        var obj = JSONObject()
        skipWhitespace()
        if i < buf.count, buf[i] == UInt8(ascii: "}") { i += 1; return .object(obj) }
        while true {
            skipWhitespace()
            guard i < buf.count, buf[i] == UInt8(ascii: "\"") else { throw error("expected object key") }
            let key = try string()
            skipWhitespace()
            guard i < buf.count, buf[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
            i += 1
            skipWhitespace()
            if tracking && path.count == depth {
                path.append(.key(key))
                obj[key] = try value(depth: depth + 1)
                path.removeLast()
            } else {
                obj[key] = try value(depth: depth + 1)
            }
            skipWhitespace()
            guard i < buf.count else { throw error("unterminated object") }
            if buf[i] == UInt8(ascii: ",") { i += 1; continue }
            if buf[i] == UInt8(ascii: "}") { i += 1; return .object(obj) }
            throw error("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        i += 1
        var arr: [JSONValue] = []
        skipWhitespace()
        if i < buf.count, buf[i] == UInt8(ascii: "]") { i += 1; return .array(arr) }
        while true {
            skipWhitespace()
            if tracking && path.count == depth {
                path.append(.index(arr.count))
                arr.append(try value(depth: depth + 1))
                path.removeLast()
            } else {
                arr.append(try value(depth: depth + 1))
            }
            skipWhitespace()
            guard i < buf.count else { throw error("unterminated array") }
            if buf[i] == UInt8(ascii: ",") { i += 1; continue }
            if buf[i] == UInt8(ascii: "]") { i += 1; return .array(arr) }
            throw error("expected ',' or ']'")
        }
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= buf.count else { throw error("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buf[i]
            let d: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONParseError) -> String {
        i += 1
        let start = i
        // Fast path: no escapes. Bytes are validated as UTF-8 on the way.
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in string") }
            if c >= 0x80 { i += try utf8SequenceLength(); continue }
            i += 1
        }
        var out = Array(buf[start..<i])
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 { throw error("control character in string") }
            if c >= 0x80 {
                let n = try utf8SequenceLength()
                out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i..<(i + n)]))
                i += n
                continue
            }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            let escapeStart = i
            i += 1
            guard i < buf.count else { break }
            let e = buf[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 6 <= buf.count, buf[i] == UInt8(ascii: "\\"), buf[i + 1] == UInt8(ascii: "u") else {
                        throw JSONParseError(offset: escapeStart, reason: "unpaired surrogate escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else {
                        throw JSONParseError(offset: escapeStart, reason: "unpaired surrogate escape")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw JSONParseError(offset: escapeStart, reason: "unpaired surrogate escape")
                }
                // Not a surrogate here, so always a valid scalar.
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                i = escapeStart
                throw error("invalid escape")
            }
        }
        throw error("unterminated string")
    }

    /// Length of the well-formed UTF-8 sequence starting at `i` (a byte >= 0x80), per Unicode
    /// Table 3-7: refuses stray continuation bytes, overlong forms, encoded surrogates (U+D800…U+DFFF),
    /// values above U+10FFFF and truncated sequences.
    func utf8SequenceLength() throws(JSONParseError) -> Int {
        let b0 = buf[i]
        let n: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard i + n <= buf.count else { throw error("invalid UTF-8") }
        guard (lo...hi).contains(buf[i + 1]) else { throw error("invalid UTF-8") }
        for k in 2..<max(2, n) where !(0x80...0xBF).contains(buf[i + k]) { throw error("invalid UTF-8") }
        return n
    }

    mutating func number(depth: Int) throws(JSONParseError) -> JSONValue {
        let start = i
        if buf[i] == UInt8(ascii: "-") { i += 1 }
        guard i < buf.count else { throw error("invalid number") }
        if buf[i] == UInt8(ascii: "0") {
            i += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(buf[i]) {
            while i < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[i]) { i += 1 }
        } else {
            throw error("invalid number")
        }
        var isInteger = true
        if i < buf.count, buf[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            let d = i
            while i < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[i]) { i += 1 }
            guard i > d else { throw error("invalid number") }
        }
        if i < buf.count, buf[i] == UInt8(ascii: "e") || buf[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < buf.count, buf[i] == UInt8(ascii: "+") || buf[i] == UInt8(ascii: "-") { i += 1 }
            let d = i
            while i < buf.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(buf[i]) { i += 1 }
            guard i > d else { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<i]), as: UTF8.self)
        let v: JSONValue
        if isInteger, let n = Int64(text) {
            v = .int(n)
        } else {
            guard let d = Double(text) else { throw error("invalid number") }
            v = .double(d)
        }
        if let keepKey, path.count == depth, path.last == .key(keepKey), JSONWriter.string(v) != text { numberText[path] = text }
        return v
    }
}
