/// A glob over `/`-separated relative paths, as `.gitignore` and the include/exclude settings write
/// them: `*` is any run of characters within a name, `?` one character, `[a-z]` and `[!a]` one of
/// (or none of) a set, `**` as a whole name any number of folders, `\` takes the next character
/// literally; `{md,txt}` (settings only) is one of the alternatives.
struct Glob: Sendable, Equatable {
    /// The pattern as written, then its alternatives, each as its names.
    let pattern: String
    let alternatives: [[[Character]]]

    init(_ pattern: String, braces: Bool = false) {
        self.pattern = pattern
        alternatives = (braces ? Glob.expandBraces(pattern) : [pattern]).map { p in
            p.split(separator: "/", omittingEmptySubsequences: true).map { Array($0) }
        }
    }

    /// Whether `path` (relative, `/`-separated) matches as a whole.
    func matches(_ path: String) -> Bool {
        let names = path.split(separator: "/").map { Array($0) }
        return alternatives.contains { Glob.match($0[...], names[...]) }
    }

    private static func match(_ pattern: ArraySlice<[Character]>, _ names: ArraySlice<[Character]>) -> Bool {
        guard let first = pattern.first else { return names.isEmpty }
        if first == ["*", "*"] {
            // Zero or more names.
            var rest = names
            while true {
                if match(pattern.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let name = names.first, matchName(first[...], name[...]) else { return false }
        return match(pattern.dropFirst(), names.dropFirst())
    }

    /// One name against one name's pattern.
    static func matchName(_ p: ArraySlice<Character>, _ s: ArraySlice<Character>) -> Bool {
        var p = p, s = s
        while let c = p.first {
            switch c {
            case "*":
                let rest = p.drop { $0 == "*" }
                if rest.isEmpty { return true }
                var tail = s
                while true {
                    if matchName(rest, tail) { return true }
                    guard !tail.isEmpty else { return false }
                    tail = tail.dropFirst()
                }
            case "?":
                guard !s.isEmpty else { return false }
                p = p.dropFirst(); s = s.dropFirst()
            case "[":
                guard let ch = s.first, let (matched, after) = matchClass(p.dropFirst(), ch) else {
                    // An unclosed "[" is itself.
                    guard s.first == "[" else { return false }
                    p = p.dropFirst(); s = s.dropFirst()
                    continue
                }
                guard matched else { return false }
                p = after; s = s.dropFirst()
            case "\\" where p.count > 1:
                guard s.first == p[p.index(after: p.startIndex)] else { return false }
                p = p.dropFirst(2); s = s.dropFirst()
            default:
                guard s.first == c else { return false }
                p = p.dropFirst(); s = s.dropFirst()
            }
        }
        return s.isEmpty
    }

    /// A set after its "[": whether `ch` is in it, and the pattern after its "]"; nil when unclosed.
    private static func matchClass(_ p: ArraySlice<Character>, _ ch: Character) -> (Bool, ArraySlice<Character>)? {
        var p = p
        var negated = false
        if p.first == "!" || p.first == "^" { negated = true; p = p.dropFirst() }
        var found = false, first = true
        while let c = p.first {
            if c == "]" && !first { return (found != negated, p.dropFirst()) }
            first = false
            var low = c
            p = p.dropFirst()
            if low == "\\", let escaped = p.first { low = escaped; p = p.dropFirst() }
            if p.first == "-", p.count > 1, p[p.index(after: p.startIndex)] != "]" {
                let high = p[p.index(after: p.startIndex)]
                p = p.dropFirst(2)
                if low <= ch && ch <= high { found = true }
            } else if low == ch {
                found = true
            }
        }
        return nil
    }

    /// `a{b,c}d` as `abd`, `acd` (nested braces too); a brace without a comma or unclosed is itself.
    static func expandBraces(_ pattern: String) -> [String] {
        let chars = Array(pattern)
        var depth = 0, open: Int?
        var commas: [Int] = []
        for (i, c) in chars.enumerated() {
            if c == "{" {
                if depth == 0 { open = i; commas = [] }
                depth += 1
            } else if c == "}", depth > 0 {
                depth -= 1
                if depth == 0, let o = open, !commas.isEmpty {
                    let head = String(chars[..<o]), tail = String(chars[(i + 1)...])
                    let bounds = [o] + commas + [i]
                    var out: [String] = []
                    for k in 0..<(bounds.count - 1) {
                        let middle = String(chars[(bounds[k] + 1)..<bounds[k + 1]])
                        out += expandBraces(head + middle + tail)
                    }
                    return out
                }
            } else if c == ",", depth == 1 {
                commas.append(i)
            }
        }
        return [pattern]
    }
}
