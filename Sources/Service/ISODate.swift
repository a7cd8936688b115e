/// The date and timestamp forms params accept.
enum ISODate {
    /// Accepts YYYY-MM-DD optionally followed by `T` or space and a time with optional fraction and zone.
    static func isValid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count >= 10 else { return false }
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard i < b.count, (48...57).contains(b[i]) else { return nil }; v = v * 10 + Int(b[i] - 48) }
            return v
        }
        guard let _ = digits(0..<4), b[4] == 45, let m = digits(5..<7), b[7] == 45, let d = digits(8..<10),
              (1...12).contains(m), (1...31).contains(d) else { return false }
        if b.count == 10 { return true }
        guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "), b.count >= 16,
              let h = digits(11..<13), b[13] == 58, let mi = digits(14..<16), h < 24, mi < 60 else { return false }
        var i = 16
        if i < b.count, b[i] == 58 {
            guard let sec = digits(17..<19), sec < 61 else { return false }
            i = 19
            if i < b.count, b[i] == 46 {
                i += 1
                let st = i
                while i < b.count, (48...57).contains(b[i]) { i += 1 }
                guard i > st else { return false }
            }
        }
        if i == b.count { return true }
        if b[i] == UInt8(ascii: "Z") { return i + 1 == b.count }
        guard b[i] == 43 || b[i] == 45, b.count == i + 6, digits((i + 1)..<(i + 3)) != nil, b[i + 3] == 58,
              digits((i + 4)..<(i + 6)) != nil else { return false }
        return true
    }
}
