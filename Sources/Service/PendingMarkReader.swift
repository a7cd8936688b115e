import Grouping

/// Reads a pending mark in exactly the form `PendingJSON.mark` writes (keys in that order, no
/// spaces, strings without escapes); nil for anything else, which the caller then hands to
/// `JSONDecoder`. A state load reads every pending mark of the owner, and `JSONDecoder` spent
/// about 50 µs on each (about 1 s of a 2 s first refresh at 20 000 pending occurrences).
struct PendingMarkReader {
    /// The last scope read, reused while the next marks carry the same bytes.
    private var lastScope: (bytes: [UInt8], scope: Scope)?

    mutating func mark(_ text: String) -> PendingMark? {
        var text = text
        return text.withUTF8 { read(Cursor(bytes: $0)) }
    }

    private mutating func read(_ start: Cursor) -> PendingMark? {
        var c = start
        guard c.take(Bytes.open) else { return nil }
        var mark = PendingMark()
        var first = true
        if c.take(Bytes.certificate) {
            guard let at = c.int(), c.take(Bytes.candidates) else { return nil }
            var candidates: [Int64] = []
            if !c.take(Bytes.close) {
                repeat {
                    guard let g = c.int64() else { return nil }
                    candidates.append(g)
                } while c.take(Bytes.comma)
                guard c.take(Bytes.close) else { return nil }
            }
            var kthGroup: Int64?, kthScore: Int?
            if c.take(Bytes.kthGroup) {
                guard let g = c.int64() else { return nil }
                kthGroup = g
            }
            if c.take(Bytes.kthScore) {
                guard let q = c.int() else { return nil }
                kthScore = q
            }
            guard c.take(Bytes.stamp), let stamp = c.int(), c.take(Bytes.end) else { return nil }
            mark.certificate = PendingCertificate(at: at, candidates: candidates, kthScore: kthScore, kthGroup: kthGroup, stamp: stamp)
            first = false
        }
        if c.take(first ? Bytes.evaluatedAtFirst : Bytes.evaluatedAt) {
            guard let at = c.int() else { return nil }
            mark.evaluatedAt = at
            first = false
        }
        if c.take(first ? Bytes.scopeFirst : Bytes.scope) {
            let from = c.i
            guard let category = c.plainString(), c.take(Bytes.owner), let owner = c.plainString(), c.take(Bytes.end) else { return nil }
            let bytes = c.bytes[from..<c.i]
            if let last = lastScope, last.bytes.elementsEqual(bytes) {
                mark.scope = last.scope
            } else {
                let scope = Scope(owner: String(decoding: owner, as: UTF8.self), category: String(decoding: category, as: UTF8.self))
                lastScope = (Array(bytes), scope)
                mark.scope = scope
            }
        }
        guard c.take(Bytes.end), c.i == c.bytes.count else { return nil }
        return mark
    }

    private enum Bytes {
        static let open = Array("{".utf8), end = Array("}".utf8), comma = Array(",".utf8), close = Array("]".utf8)
        static let certificate = Array(#""certificate":{"at":"#.utf8), candidates = Array(#","candidates":["#.utf8)
        static let kthGroup = Array(#","kthGroup":"#.utf8), kthScore = Array(#","kthScore":"#.utf8), stamp = Array(#","stamp":"#.utf8)
        static let evaluatedAtFirst = Array(#""evaluatedAt":"#.utf8), evaluatedAt = Array(#","evaluatedAt":"#.utf8)
        static let scopeFirst = Array(#""scope":{"category":"#.utf8), scope = Array(#","scope":{"category":"#.utf8)
        static let owner = Array(#","owner":"#.utf8)
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// Takes `literal` when the bytes at the cursor are it.
        mutating func take(_ literal: [UInt8]) -> Bool {
            guard bytes.count - i >= literal.count else { return false }
            for (k, b) in literal.enumerated() where bytes[i + k] != b { return false }
            i += literal.count
            return true
        }

        /// A decimal integer as `PendingJSON` writes it (optional minus, no leading zeros), in Int64.
        mutating func int64() -> Int64? {
            let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
            var j = negative ? i + 1 : i
            let digits = j
            var m: UInt64 = 0
            while j < bytes.count, bytes[j] >= UInt8(ascii: "0"), bytes[j] <= UInt8(ascii: "9") {
                let (times, o1) = m.multipliedReportingOverflow(by: 10)
                let (plus, o2) = times.addingReportingOverflow(UInt64(bytes[j] - UInt8(ascii: "0")))
                guard !o1, !o2 else { return nil }
                m = plus
                j += 1
            }
            let n = j - digits
            guard n > 0, n == 1 || bytes[digits] != UInt8(ascii: "0") else { return nil }
            if negative {
                guard m <= UInt64(Int64.max) + 1, m > 0 else { return nil }
                i = j
                return m == UInt64(Int64.max) + 1 ? .min : -Int64(m)
            }
            guard m <= UInt64(Int64.max) else { return nil }
            i = j
            return Int64(m)
        }

        mutating func int() -> Int? { int64().map { Int($0) } }

        /// A quoted string with no escape and no control byte: its bytes between the quotes.
        mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            var j = i + 1
            while j < bytes.count, bytes[j] != UInt8(ascii: "\"") {
                if bytes[j] == UInt8(ascii: "\\") || bytes[j] < 0x20 { return nil }
                j += 1
            }
            guard j < bytes.count else { return nil }
            let s = UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j])
            i = j + 1
            return s
        }
    }
}
