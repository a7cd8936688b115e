import Foundation

/// One entry of a note file: a dated section, or the file as a whole.
public struct NoteEntry: Sendable, Equatable {
    /// Which section of its file: nil for the whole file (or what comes before its first dated
    /// section), else the section's date, `~2`, `~3`… after it when the date repeats in the file.
    public var section: String?
    /// The heading's text, or the file's first heading or name.
    public var title: String
    public var date: String?
    /// The front matter's `kind:` (`dream`), else nil: a note.
    public var kind: String? = nil
    /// The entry's lines in its file (0-based, `endLine` included): from a section's heading.
    public var startLine: Int
    public var endLine: Int
    /// The line `text` starts on: `text` is the file's lines `bodyLine...endLine` joined by "\n".
    public var bodyLine: Int
    public var text: String
}

/// Splits a note file into entries. A file whose headings hold dates (`## 2025-01-04`,
/// `# Monday 6 January 2025`) gives one entry per dated section: from its heading to the next
/// dated heading or a heading of a higher rank (fewer `#`). Lines before the first such section
/// with something besides headings are an entry of their own; a file without dated headings is
/// one entry. Dates come from the heading, else front matter (`date: 2025-01-04`), else a file
/// name that starts with one. Headings inside fenced code do not count. A front matter `kind:`
/// (`kind: dream`) is the kind of every entry of the file.
public enum NoteParser {
    public static func entries(text: String, fileName: String) -> [NoteEntry] {
        let lines = lines(text)
        let kind = frontMatterKind(lines)
        return entries(lines: lines, fileName: fileName).map { e in
            var e = e
            e.kind = kind
            return e
        }
    }

    static func lines(_ text: String) -> [Substring] {
        // "\r\n" is one Character to Swift: drop the carriage returns before splitting lines.
        let text = text.unicodeScalars.contains("\r") ? String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\r" })) : text
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    static func entries(lines: [Substring], fileName: String) -> [NoteEntry] {
        let (bodyFrom, frontMatterDate) = frontMatter(lines)
        let fileDate = frontMatterDate ?? NoteDates.fromFileName(String(fileName.split(separator: "/").last ?? ""))
        let stem = fileName.split(separator: "/").last.map { name in name.lastIndex(of: ".").map { String(name[..<$0]) } ?? String(name) } ?? fileName

        var headings: [(line: Int, level: Int, text: Substring)] = []
        var fence: Substring?
        for i in bodyFrom..<lines.count {
            let trimmed = lines[i].drop { $0 == " " }
            if let f = fence {
                if trimmed.hasPrefix(f) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = trimmed.prefix(3)
                continue
            }
            if let h = heading(lines[i]) { headings.append((i, h.level, h.text)) }
        }
        let dated = headings.compactMap { h in NoteDates.find(in: h.text).map { (h, $0) } }
        guard let first = dated.first else {
            return [body(lines, bodyFrom, lines.count - 1).map { b in
                NoteEntry(section: nil, title: headings.first.map { String($0.text) } ?? stem, date: fileDate,
                          startLine: b.first, endLine: b.last, bodyLine: b.first, text: b.text)
            }].compactMap { $0 }
        }
        var out: [NoteEntry] = []
        let preambleHasText = (bodyFrom..<first.0.line).contains { i in heading(lines[i]) == nil && !isBlank(lines[i]) }
        if preambleHasText, let b = body(lines, bodyFrom, first.0.line - 1) {
            out.append(NoteEntry(section: nil, title: headings.first.map { String($0.text) } ?? stem, date: fileDate,
                                 startLine: b.first, endLine: b.last, bodyLine: b.first, text: b.text))
        }
        var seen: [String: Int] = [:]
        for (k, (h, date)) in dated.enumerated() {
            let nextDated = k + 1 < dated.count ? dated[k + 1].0.line : lines.count
            let higher = headings.first { $0.line > h.line && $0.line < nextDated && $0.level < h.level }?.line ?? nextDated
            let end = min(nextDated, higher) - 1
            seen[date, default: 0] += 1
            let section = seen[date] == 1 ? date : "\(date)~\(seen[date]!)"
            guard let b = body(lines, h.line + 1, end) else { continue }
            out.append(NoteEntry(section: section, title: String(h.text), date: date, startLine: h.line, endLine: b.last,
                                 bodyLine: b.first, text: b.text))
        }
        return out
    }

    /// An ATX heading: 1–6 `#`, then a space (or nothing); its text without closing `#`s.
    static func heading(_ line: Substring) -> (level: Int, text: Substring)? {
        let s = line.drop { $0 == " " }
        guard line.count - s.count <= 3 else { return nil }
        let hashes = s.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let rest = s.dropFirst(hashes)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        var text = rest.drop { $0 == " " || $0 == "\t" }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        let closing = text.reversed().prefix { $0 == "#" }.count
        if closing > 0, closing == text.count || text.dropLast(closing).last == " " {
            text = text.dropLast(closing)
            while text.last == " " { text = text.dropLast() }
        }
        return (hashes, text)
    }

    static func isBlank(_ line: Substring) -> Bool { line.allSatisfy { $0.isWhitespace } }

    /// YAML front matter (`---` … `---` or `...` on the first lines): the line after it and its `date:`.
    static func frontMatter(_ lines: [Substring]) -> (bodyFrom: Int, date: String?) {
        guard lines.first == "---" else { return (0, nil) }
        for i in 1..<min(lines.count, 200) where lines[i] == "---" || lines[i] == "..." {
            let date = lines[1..<i].first { $0.hasPrefix("date:") }.flatMap { NoteDates.find(in: $0.dropFirst(5)) }
            return (i + 1, date)
        }
        return (0, nil)
    }

    /// The front matter's `kind:`, unquoted: a word of letters, digits, `-` and `_`.
    static func frontMatterKind(_ lines: [Substring]) -> String? {
        let (bodyFrom, _) = frontMatter(lines)
        guard bodyFrom > 0 else { return nil }
        guard let line = lines[1..<bodyFrom].first(where: { $0.hasPrefix("kind:") }) else { return nil }
        let value = line.dropFirst(5).trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
        guard !value.isEmpty, value.count <= 64, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        return value
    }

    /// Lines `from...to` without the blank ones at either end, joined; nil when all are blank.
    static func body(_ lines: [Substring], _ from: Int, _ to: Int) -> (first: Int, last: Int, text: String)? {
        guard from <= to else { return nil }
        guard let first = (from...to).first(where: { !isBlank(lines[$0]) }),
              let last = (from...to).reversed().first(where: { !isBlank(lines[$0]) }) else { return nil }
        return (first, last, lines[first...last].joined(separator: "\n"))
    }
}
