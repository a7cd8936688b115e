/// Dates as people write them in notes: `2025-01-04` anywhere in a line, or a day, a month's name
/// and a year (`Monday 6 January 2025`, `6 Jan 2025`, `January 6, 2025`). Each is checked against
/// the calendar, so `2025-02-30` is no date.
enum NoteDates {
    /// The first date in `text`, as `YYYY-MM-DD`.
    static func find(in text: Substring) -> String? {
        iso(in: text) ?? written(in: text)
    }

    /// A file name that starts with a date: `2025-01-04.md`, `2025-01-04 dentist.md`.
    static func fromFileName(_ name: String) -> String? {
        let scalars = Array(name.unicodeScalars.prefix(10))
        guard scalars.count == 10 else { return nil }
        return iso(in: Substring(String(String.UnicodeScalarView(scalars))))
    }

    /// `YYYY-MM-DD` not inside a longer run of digits.
    static func iso(in text: Substring) -> String? {
        let s = Array(text.utf8)
        guard s.count >= 10 else { return nil }
        func digit(_ i: Int) -> Int? { s[i] >= 48 && s[i] <= 57 ? Int(s[i] - 48) : nil }
        for i in 0...(s.count - 10) {
            if i > 0, digit(i - 1) != nil { continue }
            if i + 10 < s.count, digit(i + 10) != nil { continue }
            guard s[i + 4] == UInt8(ascii: "-"), s[i + 7] == UInt8(ascii: "-") else { continue }
            let ds = [0, 1, 2, 3, 5, 6, 8, 9].compactMap { digit(i + $0) }
            guard ds.count == 8 else { continue }
            let year = ds[0] * 1000 + ds[1] * 100 + ds[2] * 10 + ds[3]
            if let d = make(year: year, month: ds[4] * 10 + ds[5], day: ds[6] * 10 + ds[7]) { return d }
        }
        return nil
    }

    static let months: [String: Int] = {
        let names = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
        var m: [String: Int] = [:]
        for (i, n) in names.enumerated() {
            m[n] = i + 1
            m[String(n.prefix(3))] = i + 1
        }
        m["sept"] = 9
        return m
    }()

    /// A month's name with a day next to it (before, or after as in `January 6,`) and a year after.
    static func written(in text: Substring) -> String? {
        var words: [Substring] = []
        var start: Substring.Index?
        for i in text.indices {
            let c = text[i]
            if c.isLetter || c.isNumber {
                if start == nil { start = i }
            } else if let s = start {
                words.append(text[s..<i])
                start = nil
            }
        }
        if let s = start { words.append(text[s...]) }
        func number(_ w: Substring, digits: ClosedRange<Int>) -> Int? {
            // 6, 06, 6th, 1st, 22nd, 3rd
            let lower = w.lowercased()
            let core = ["st", "nd", "rd", "th"].first { lower.hasSuffix($0) && lower.count > 2 }.map { _ in String(lower.dropLast(2)) } ?? lower
            guard digits.contains(core.count), core.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(core)
        }
        for (k, w) in words.enumerated() {
            guard let month = months[w.lowercased()] else { continue }
            // `6 January 2025`
            if k > 0, let day = number(words[k - 1], digits: 1...2), k + 1 < words.count,
               let year = number(words[k + 1], digits: 4...4), let d = make(year: year, month: month, day: day) {
                return d
            }
            // `January 6, 2025`
            if k + 2 < words.count, let day = number(words[k + 1], digits: 1...2), let year = number(words[k + 2], digits: 4...4),
               let d = make(year: year, month: month, day: day) {
                return d
            }
        }
        return nil
    }

    static func make(year: Int, month: Int, day: Int) -> String? {
        guard (1...12).contains(month), day >= 1, year >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return nil }
        func pad(_ n: Int, _ w: Int) -> String { String(repeating: "0", count: max(0, w - String(n).count)) + String(n) }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}
