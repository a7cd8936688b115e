/// `file:` URIs as editors send them, and back: `file:///home/me/notes/a%20b.md` ↔ `/home/me/notes/a b.md`.
enum FileURI {
    /// The path of a `file:` URI (percent-decoded), or nil for another scheme or a malformed escape.
    static func path(_ uri: String) -> String? {
        guard uri.hasPrefix("file://") else { return nil }
        var rest = Substring(uri.dropFirst(7))
        // `file://localhost/…` names this machine as `file:///…` does.
        if rest.hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/") else { return nil }
        if let q = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<q] }
        var bytes: [UInt8] = []
        var it = Array(rest.utf8)[...]
        while let b = it.popFirst() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard it.count >= 2, let hi = hex(it.removeFirst()), let lo = hex(it.removeFirst()) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The `file:` URI of an absolute path: every byte but unreserved characters and `/` escaped.
    static func uri(_ path: String) -> String {
        var out = "file://"
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(digits[Int(b >> 4)])
                out.unicodeScalars.append(digits[Int(b & 15)])
            }
        }
        return out
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
