/// Compact JSON serialisation (no whitespace, no escaped slashes, one line).
public enum JSONWriter {
    public static func bytes(_ v: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(v, to: &out)
        return out
    }

    public static func string(_ v: JSONValue) -> String { String(decoding: bytes(v), as: UTF8.self) }

    public static func write(_ v: JSONValue, to out: inout [UInt8]) {
        switch v {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): writeDouble(d, to: &out)
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, e) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(e, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (k, e) in o {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(k, to: &out)
                out.append(UInt8(ascii: ":"))
                write(e, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeDouble(_ d: Double, to out: inout [UInt8]) {
        guard d.isFinite else { out.append(contentsOf: "null".utf8); return }
        if d == d.rounded(), abs(d) < 1e15 {
            out.append(contentsOf: String(Int64(d)).utf8)
            if d == 0 && d.sign == .minus { return }
            return
        }
        out.append(contentsOf: "\(d)".utf8)
    }

    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
