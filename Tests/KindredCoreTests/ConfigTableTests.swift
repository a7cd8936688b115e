import Foundation
import Testing
@testable import KindredCore

/// The table of docs/configuration.md names every key of `Config.defaults` once, with its default
/// (config/kindred.json is checked against the same defaults in `ConfigTests`).
@Suite struct ConfigTableTests {
    /// Each key of the table's rows with its default as written. A row may name several keys of one
    /// area: `` `embedder.maxRetries` / `retryBaseMs` `` with defaults `3 / 500`.
    static func documented(_ markdown: String) -> [(key: String, text: String)] {
        var out: [(key: String, text: String)] = []
        for line in markdown.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let keys = cells[1].split(separator: "/").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            let texts = cells[2].split(separator: "/").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            guard let first = keys.first, keys.count == texts.count else {
                out.append((key: cells[1], text: "a row whose keys and defaults do not pair up"))
                continue
            }
            let area = first.split(separator: ".").first.map(String.init) ?? ""
            for (key, text) in zip(keys, texts) {
                out.append((key: key.contains(".") ? key : area + "." + key, text: text))
            }
        }
        return out
    }

    /// Whether `text` is how the table writes `value`: `""` for an empty string.
    static func writes(_ text: String, _ value: JSONValue) -> Bool {
        switch value {
        case .int(let i): return Int64(text) == i
        case .double(let d): return Double(text) == d
        case .bool(let b): return text == String(b)
        case .string(let s): return text == (s.isEmpty ? "\"\"" : s)
        default: return false
        }
    }

    @Test func theDocumentedTableHoldsEveryDefault() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try #require(FileManager.default.contents(atPath: root.appendingPathComponent("docs/configuration.md").path))
        let rows = Self.documented(String(decoding: data, as: UTF8.self))
        #expect(rows.map(\.key).sorted() == Config.defaults.map(\.key).sorted())
        for (key, text) in rows {
            let value = try #require(Config.defaults.first { $0.key == key }?.value, "\(key) is not a configuration key")
            #expect(Self.writes(text, value), "\(key): the table says \(text), the default is \(value)")
        }
    }

    @Test func rowsOfSeveralKeysPairThemWithTheirDefaults() {
        let rows = Self.documented("""
            | key | default | meaning |
            |---|---|---|
            | `embedder.maxRetries` / `retryBaseMs` | 3 / 500 | retries |
            | `search.fusion` | `score` | fusion |
            | `embedder.url` / `embedder.apiKey` | "" / "" | where |
            """)
        #expect(rows.map(\.key) == ["embedder.maxRetries", "embedder.retryBaseMs", "search.fusion", "embedder.url", "embedder.apiKey"])
        #expect(rows.map(\.text) == ["3", "500", "score", "\"\"", "\"\""])
        #expect(Self.writes("0.40", .double(0.4)))
        #expect(!Self.writes("0.45", .double(0.4)))
        #expect(!Self.writes("", .string("local")))
    }
}
