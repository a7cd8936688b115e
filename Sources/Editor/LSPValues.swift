import KindredCore

/// LSP positions, ranges and locations of entries. Lines are 0-based; characters count UTF-16 code
/// units, the encoding LSP uses unless a client negotiates another.
enum LSPValues {
    static func position(line: Int, character: Int) -> JSONValue {
        ["line": .from(line), "character": .from(character)]
    }

    static func range(_ start: (line: Int, character: Int), _ end: (line: Int, character: Int)) -> JSONValue {
        ["start": position(line: start.line, character: start.character), "end": position(line: end.line, character: end.character)]
    }

    /// The whole entry: from its first line to the end of its last.
    static func range(of e: IndexedEntry) -> JSONValue {
        let lastLine = e.entry.text.split(separator: "\n", omittingEmptySubsequences: false).last ?? ""
        return range((e.entry.startLine, 0), (e.entry.endLine, lastLine.utf16.count))
    }

    /// Offsets in Unicode scalars into the entry's text (a search hit's passage), as a range of its file.
    static func range(of e: IndexedEntry, scalars: Range<Int>) -> JSONValue {
        var line = e.entry.bodyLine, column = 0, index = 0
        var start = (line: line, character: 0), end: (line: Int, character: Int)? = nil
        for s in e.entry.text.unicodeScalars {
            if index == scalars.lowerBound { start = (line, column) }
            if index == scalars.upperBound { end = (line, column); break }
            if s == "\n" { line += 1; column = 0 } else { column += s.utf16.count }
            index += 1
        }
        if index == scalars.lowerBound && index < scalars.upperBound { start = (line, column) }
        return range(start, end ?? (line, column))
    }

    static func location(_ e: IndexedEntry, range: JSONValue) -> JSONValue {
        ["uri": .string(FileURI.uri(e.path)), "range": range]
    }

    /// The entry's text on one line, at most `limit` characters (cut at a word, with "…").
    static func oneLine(_ text: String, limit: Int = 120) -> String {
        let flat = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        guard flat.count > limit else { return flat }
        let cut = flat.prefix(limit)
        let word = cut.lastIndex(of: " ").map { cut[..<$0] } ?? cut
        return String(word) + "…"
    }
}
