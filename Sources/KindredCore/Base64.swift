/// Strict decoding of standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, `=` padding).
///
/// Clients send vectors as base64 of little-endian float32 (as OpenAI's `encoding_format: "base64"`
/// does), so the decoder is on the request path: it runs over the UTF-8 bytes with a 256-entry table
/// and no intermediate `String` or `Data`. Anything but canonical base64 is refused with the offset
/// of the first bad character: whitespace, the URL-safe alphabet, padding in the middle, a length
/// that is not a multiple of 4 once padded, and non-zero bits in the last character's unused low
/// bits (so each byte string has exactly one accepted spelling). Padding may be left out.
public enum Base64 {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        /// Offset of the offending character in the string's UTF-8 bytes (the length for a bad length).
        public var offset: Int
        public var reason: String
        public var description: String { reason }
    }

    /// 0–63 for the alphabet, 64 for `=`, 255 for anything else.
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 255, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "="))] = 64
        return t
    }()

    /// How many bytes `count` characters of unpadded or padded base64 decode to, or nil when no
    /// base64 string has that length (a single character after the last full quartet).
    public static func decodedCount(characters count: Int, padding: Int) -> Int? {
        let data = count - padding
        switch data % 4 {
        case 1: return nil
        case 0: return data / 4 * 3
        default: return data / 4 * 3 + data % 4 - 1
        }
    }

    /// The bytes `s` encodes.
    public static func decode(_ s: String) throws(Problem) -> [UInt8] {
        var s = s
        let result: Result<[UInt8], Problem> = s.withUTF8 { decode(utf8: $0) }
        return try result.get()
    }

    static func decode(utf8 in: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], Problem> {
        let n = `in`.count
        var padding = 0
        while padding < 2, padding < n, `in`[n - 1 - padding] == UInt8(ascii: "=") { padding += 1 }
        if padding > 0, n % 4 != 0 {
            return .failure(Problem(offset: n, reason: "has \(n) characters with padding: padded base64 is a multiple of 4 characters long"))
        }
        guard let out = decodedCount(characters: n, padding: padding) else {
            return .failure(Problem(offset: n, reason: "has \(n) characters: no base64 string is that long (one character too many or too few)"))
        }
        let data = n - padding
        let t = table
        var bytes = [UInt8](repeating: 0, count: out)
        var bad: Problem?
        bytes.withUnsafeMutableBufferPointer { o in
            var i = 0, w = 0
            // Whole quartets: 4 characters → 3 bytes. A bad character sets bit 7 of `or`.
            while i + 4 <= data {
                let a = t[Int(`in`[i])], b = t[Int(`in`[i + 1])], c = t[Int(`in`[i + 2])], d = t[Int(`in`[i + 3])]
                if (a | b | c | d) & 0xC0 != 0 { break }
                o[w] = a << 2 | b >> 4
                o[w + 1] = b << 4 | c >> 2
                o[w + 2] = c << 6 | d
                i += 4
                w += 3
            }
            // The tail (or the quartet that held a bad character): one character at a time.
            var acc: UInt32 = 0, bits = 0
            while i < data {
                let v = t[Int(`in`[i])]
                if v >= 64 {
                    let ch = `in`[i]
                    let shown = ch >= 0x20 && ch < 0x7F ? "'\(Character(Unicode.Scalar(ch)))'" : String(format8: ch)
                    bad = Problem(offset: i, reason: "is not base64: character \(shown) at offset \(i) (standard alphabet A–Z a–z 0–9 + /, '=' padding only at the end)")
                    return
                }
                acc = acc << 6 | UInt32(v)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    o[w] = UInt8(truncatingIfNeeded: acc >> UInt32(bits))
                    w += 1
                }
                i += 1
            }
            if bits > 0, acc & ((1 << UInt32(bits)) - 1) != 0 {
                bad = Problem(offset: data - 1, reason: "is not canonical base64: the last character carries bits beyond the data")
            }
        }
        if let bad { return .failure(bad) }
        return .success(bytes)
    }
}

private extension String {
    /// `byte 0xNN`, for a byte that would not print.
    init(format8 b: UInt8) {
        let hex = Array("0123456789ABCDEF")
        self = "byte 0x" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 15)])
    }
}
