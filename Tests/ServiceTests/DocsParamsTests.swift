import Foundation
import Testing
import KindredCore
import JSONRPC
@testable import Service

/// The method reference and the params types agree: each method's documented keys are exactly the
/// keys its type accepts, and every documented request example is accepted key for key.
@Suite struct DocsParamsTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func doc(_ name: String) throws -> String { try String(contentsOf: repo.appendingPathComponent("docs/\(name)"), encoding: .utf8) }

    /// A heading naming methods, and the body up to the next heading of the same or a higher level.
    struct Section { var methods: [String]; var body: [String] }

    static func sections(_ text: String) -> [Section] {
        var out: [Section] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") || line.hasPrefix("### ") {
                out.append(Section(methods: codeSpans(line).filter { $0.contains("/") }, body: []))
            } else if !out.isEmpty {
                out[out.count - 1].body.append(line)
            }
        }
        return out
    }

    static func codeSpans(_ line: String) -> [String] {
        let parts = line.split(separator: "`", omittingEmptySubsequences: false)
        return stride(from: 1, to: parts.count, by: 2).map { String(parts[$0]) }
    }

    /// The names in the first column of the table whose header's first cell is `header`.
    static func tableKeys(_ body: [String], header: String) -> [String]? {
        guard let start = body.firstIndex(where: { $0.hasPrefix("| \(header) |") }) else { return nil }
        var keys: [String] = []
        for line in body[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            let first = line.split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? ""
            keys += codeSpans(first)
        }
        return keys
    }

    static func allSections() throws -> [Section] { try sections(doc("methods.md")) + sections(doc("patterns.md")) }

    @Test func everyMethodsDocumentedParamsAreTheKeysItAccepts() throws {
        let sections = try Self.allSections()
        for route in KindredService.routes {
            let section = try #require(sections.first { $0.methods.contains(route.method) }, "no section for \(route.method)")
            let documented = try #require(Self.tableKeys(section.body, header: "param"), "no params table for \(route.method)")
            #expect(Set(documented.filter { $0 != "workDoneToken" }) == Set(route.keys), "\(route.method)")
            #expect(documented.count == Set(documented).count, "\(route.method) lists a key twice")
        }
    }

    @Test(arguments: [
        ("records/upsert", "field", RecordInput.keys),
        ("search/query", "filter", SearchParams.filterKeys),
        ("occurrences/put", "field", OccurrencesPut.occurrenceKeys),
        ("patterns/correct", "field", CorrectionParams.keys),
    ])
    func nestedObjectsDocumentedFieldsAreTheKeysTheyAccept(method: String, header: String, keys: [String]) throws {
        let section = try #require(try Self.allSections().first { $0.methods.contains(method) })
        let documented = try #require(Self.tableKeys(section.body, header: header))
        #expect(Set(documented) == Set(keys))
    }

    /// JSON values in a section: fenced blocks (whole, or line by line) and inline code spans.
    static func examples(_ body: [String]) -> [JSONValue] {
        var out: [JSONValue] = []
        var block: [String]?
        func parse(_ s: String) -> JSONValue? {
            let text = s.replacingOccurrences(of: "[0.01, …]", with: "[0.01, 0.2, 0.03, 0.4, 0.05, 0.6, 0.07, 0.8]")
            return try? JSONParser.parse(text)
        }
        for line in body {
            if line.hasPrefix("```") {
                if let lines = block {
                    if let v = parse(lines.joined(separator: "\n")) { out.append(v) } else { out += lines.compactMap(parse) }
                    block = nil
                } else {
                    block = []
                }
            } else if block != nil {
                block!.append(line)
            } else {
                out += codeSpans(line).compactMap(parse)
            }
        }
        return out
    }

    /// The requests among `values` for `methods`: full JSON-RPC requests, or bare params objects
    /// (which hold `owner`) in a section about those methods.
    static func requests(_ values: [JSONValue], methods: [String]) -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        for v in values {
            for item in v.arrayValue ?? [v] {
                if let m = item["method"]?.stringValue, KindredService.route(m) != nil {
                    out.append((m, item["params"] ?? .null))
                } else if item["jsonrpc"] == nil, item["owner"] != nil {
                    out += methods.map { ($0, item) }
                }
            }
        }
        return out
    }

    @Test func everyDocumentedRequestUsesOnlyKeysTheMethodAccepts() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("alice", [rec("note-1", axis: 0), rec("note-2", axis: 1)])
        var sent: Set<String> = []
        // Sections about methods only: the Params section shows a refused key on purpose.
        for section in try Self.allSections() where !section.methods.isEmpty {
            for (method, params) in Self.requests(Self.examples(section.body), methods: section.methods) {
                sent.insert(method)
                let e = f.callError(method, params)
                #expect(e?.data?["unknown"] == nil, "\(method) \(params): \(e?.message ?? "")")
            }
        }
        // Every method has at least one documented example.
        #expect(sent.isSuperset(of: KindredService.routes.map(\.method)), "no example for \(Set(KindredService.routes.map(\.method)).subtracting(sent).sorted())")
    }
}
