import Grouping
import KindredCore

/// The pending map as the engine's JSON — `[id, mark, id, mark, …]`, the form `JSONDecoder` reads
/// for `[Int64: PendingMark]` — with ids ascending (so equal maps give equal rows) and each object's
/// keys sorted. Written directly: a refresh rewrites the whole map, and `JSONEncoder` spent more
/// time on it than the engine did on the refresh.
enum PendingJSON {
    static func encode(_ pending: [Int64: PendingMark]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(pending.count * 240 + 2)
        out.append(UInt8(ascii: "["))
        for (n, id) in pending.keys.sorted().enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            int(id, &out)
            out.append(UInt8(ascii: ","))
            mark(pending[id]!, &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func mark(_ m: PendingMark, _ out: inout [UInt8]) {
        var first = true
        out.append(UInt8(ascii: "{"))
        if let c = m.certificate {
            key("certificate", &first, &out)
            var f = true
            out.append(UInt8(ascii: "{"))
            key("at", &f, &out); int(Int64(c.at), &out)
            key("candidates", &f, &out)
            out.append(UInt8(ascii: "["))
            for (k, g) in c.candidates.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                int(g, &out)
            }
            out.append(UInt8(ascii: "]"))
            if let g = c.kthGroup { key("kthGroup", &f, &out); int(g, &out) }
            if let q = c.kthScore { key("kthScore", &f, &out); int(Int64(q), &out) }
            key("stamp", &f, &out); int(Int64(c.stamp), &out)
            out.append(UInt8(ascii: "}"))
        }
        if let at = m.evaluatedAt { key("evaluatedAt", &first, &out); int(Int64(at), &out) }
        if let s = m.scope {
            key("scope", &first, &out)
            var f = true
            out.append(UInt8(ascii: "{"))
            key("category", &f, &out); JSONWriter.writeString(s.category, to: &out)
            key("owner", &f, &out); JSONWriter.writeString(s.owner, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `"k":`, after a comma unless it is the object's first key.
    private static func key(_ k: String, _ first: inout Bool, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        JSONWriter.writeString(k, to: &out)
        out.append(UInt8(ascii: ":"))
    }

    private static func int(_ x: Int64, _ out: inout [UInt8]) { out.append(contentsOf: String(x).utf8) }
}
