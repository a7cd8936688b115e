import Grouping
import KindredCore

/// A pending mark as the engine's JSON (what `JSONDecoder` reads for `PendingMark`), each object's
/// keys sorted so that equal marks give equal rows; and the pending watermarks. Written directly:
/// a rebuild writes every mark, and `JSONEncoder` spent more time on them than the engine did.
enum PendingJSON {
    static func mark(_ m: PendingMark) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(240)
        var scopes = ScopeBytes()
        mark(m, &out, &scopes)
        return String(decoding: out, as: UTF8.self)
    }

    /// One watermark of `PatternState.checked`, as stored.
    private struct Checked: Codable {
        var owner: String
        var category: String
        var below: Int
        var at: Int
    }

    /// The watermarks as a JSON array ordered by scope (nil when there is none).
    static func checked(_ checked: [Scope: PendingWatermark]) -> String? {
        guard !checked.isEmpty else { return nil }
        let rows = checked.keys.sorted().map { Checked(owner: $0.owner, category: $0.category, below: checked[$0]!.below, at: checked[$0]!.at) }
        return try? PatternCodec.encode(rows)
    }

    /// The background levels in force (`PatternState.levels`), one row per scope, in scope order.
    private struct Level: Codable {
        var owner: String
        var category: String
        var level: Int
    }

    static func levels(_ levels: [Scope: Int]) -> String? {
        guard !levels.isEmpty else { return nil }
        return try? PatternCodec.encode(levels.keys.sorted().map { Level(owner: $0.owner, category: $0.category, level: levels[$0]!) })
    }

    static func decodeLevels(_ text: String) throws -> [Scope: Int] {
        var out: [Scope: Int] = [:]
        for r in try PatternCodec.decode([Level].self, text) { out[Scope(owner: r.owner, category: r.category)] = r.level }
        return out
    }

    static func decodeChecked(_ text: String) throws -> [Scope: PendingWatermark] {
        var out: [Scope: PendingWatermark] = [:]
        for r in try PatternCodec.decode([Checked].self, text) {
            out[Scope(owner: r.owner, category: r.category)] = PendingWatermark(below: r.below, at: r.at)
        }
        return out
    }

    /// The last scope written and its JSON object.
    private struct ScopeBytes {
        var scope: Scope?
        var bytes: [UInt8] = []

        mutating func json(_ s: Scope) -> [UInt8] {
            if let scope, scope.category == s.category, scope.owner == s.owner { return bytes }
            var out: [UInt8] = Array(#"{"category":"#.utf8)
            JSONWriter.writeString(s.category, to: &out)
            out.append(contentsOf: #","owner":"#.utf8)
            JSONWriter.writeString(s.owner, to: &out)
            out.append(UInt8(ascii: "}"))
            scope = s
            bytes = out
            return out
        }
    }

    private static func mark(_ m: PendingMark, _ out: inout [UInt8], _ scopes: inout ScopeBytes) {
        var first = true
        out.append(UInt8(ascii: "{"))
        if let c = m.certificate {
            key(Keys.certificate, &first, &out)
            var f = true
            out.append(UInt8(ascii: "{"))
            key(Keys.at, &f, &out); int(Int64(c.at), &out)
            key(Keys.candidates, &f, &out)
            out.append(UInt8(ascii: "["))
            for (k, g) in c.candidates.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                int(g, &out)
            }
            out.append(UInt8(ascii: "]"))
            if let g = c.kthGroup { key(Keys.kthGroup, &f, &out); int(g, &out) }
            if let q = c.kthScore { key(Keys.kthScore, &f, &out); int(Int64(q), &out) }
            key(Keys.stamp, &f, &out); int(Int64(c.stamp), &out)
            out.append(UInt8(ascii: "}"))
        }
        if let at = m.evaluatedAt { key(Keys.evaluatedAt, &first, &out); int(Int64(at), &out) }
        if let s = m.scope {
            key(Keys.scope, &first, &out)
            out.append(contentsOf: scopes.json(s))
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Each key as `"k":`, ready to copy.
    private enum Keys {
        static let certificate = quoted("certificate"), at = quoted("at"), candidates = quoted("candidates")
        static let kthGroup = quoted("kthGroup"), kthScore = quoted("kthScore"), stamp = quoted("stamp")
        static let evaluatedAt = quoted("evaluatedAt"), scope = quoted("scope")
        static func quoted(_ k: String) -> [UInt8] { Array("\"\(k)\":".utf8) }
    }

    /// `"k":`, after a comma unless it is the object's first key.
    private static func key(_ k: [UInt8], _ first: inout Bool, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        out.append(contentsOf: k)
    }

    /// The decimal digits of `x`, written straight into `out`.
    private static func int(_ x: Int64, _ out: inout [UInt8]) {
        if x < 0 { out.append(UInt8(ascii: "-")) }
        var m = x.magnitude
        var digits: (UInt64, UInt64) = (0, 0)  // room for 20 digits, least significant first
        var n = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            repeat {
                buf[n] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                n += 1
            } while m > 0 && n < 16
            if m > 0 {  // more than 16 digits: rare, done the plain way
                let rest = Array(String(m).utf8)
                out.append(contentsOf: rest)
            }
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(buf[i]) }
        }
    }
}
