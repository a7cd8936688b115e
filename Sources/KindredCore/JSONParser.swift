/// A strict RFC 8259 JSON parser over UTF-8 bytes. Integers without fraction or exponent that fit in
/// Int64 become `.int`; every other number becomes `.double`.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

public enum JSONParser {
    public static let maxDepth = 512

    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) -> JSONValue in
            var p = Cursor(buf: buf)
            p.skipWhitespace()
            let v = try p.value(depth: 0)
            p.skipWhitespace()
            guard p.i == buf.count else { throw p.error("unexpected trailing characters") }
            return v
        }
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct Cursor {
    let buf: UnsafeBufferPointer<UInt8>
    var i = 0

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
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
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
            obj[key] = try value(depth: depth + 1)
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
            arr.append(try value(depth: depth + 1))
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
        // Fast path: no escapes.
        while i < buf.count {
            let c = buf[i]
            if c == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { throw error("control character in string") }
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
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
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
                    if i + 6 <= buf.count, buf[i] == UInt8(ascii: "\\"), buf[i + 1] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalar = 0xFFFD
                            i -= 6
                        }
                    } else {
                        scalar = 0xFFFD
                    }
                } else if (0xDC00..<0xE000).contains(scalar) {
                    scalar = 0xFFFD
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default:
                throw error("invalid escape")
            }
        }
        throw error("unterminated string")
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
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
        if isInteger, let v = Int64(text) { return .int(v) }
        guard let d = Double(text) else { throw error("invalid number") }
        return .double(d)
    }
}
