import Foundation
import Testing
import KindredCore
import JSONRPC
import KindredProtocol
@testable import Service

/// The method reference and the protocol's catalogue agree: each method's documented keys are
/// exactly its catalogue keys, documented as required exactly when the catalogue requires them, and
/// every documented request example is accepted by the service key for key.
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

    /// The rows of the table whose header's first cell is `header`: each name in the first column
    /// (`from`, `to` are two) with the row's last cell.
    static func tableRows(_ body: [String], header: String) -> [(key: String, note: String)]? {
        guard let start = body.firstIndex(where: { $0.hasPrefix("| \(header) |") }) else { return nil }
        var rows: [(key: String, note: String)] = []
        for line in body[(start + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
            rows += codeSpans(cells.first ?? "").map { ($0, cells.last ?? "") }
        }
        return rows
    }

    static func tableKeys(_ body: [String], header: String) -> [String]? { tableRows(body, header: header)?.map(\.key) }

    static func allSections() throws -> [Section] { try sections(doc("methods.md")) + sections(doc("patterns.md")) }

    @Test func everyMethodsDocumentedParamsAreItsCatalogueKeys() throws {
        let sections = try Self.allSections()
        for spec in KindredService.requestTypes.map({ $0.spec }) {
            let section = try #require(sections.first { $0.methods.contains(spec.method) }, "no section for \(spec.method)")
            let rows = try #require(Self.tableRows(section.body, header: "param"), "no params table for \(spec.method)")
                .filter { $0.key != "workDoneToken" }
            #expect(Set(rows.map(\.key)) == Set(spec.keys), "\(spec.method)")
            #expect(rows.count == Set(rows.map(\.key)).count, "\(spec.method) lists a key twice")
            let documentedRequired = rows.filter { $0.note.hasPrefix("required") }.map(\.key)
            #expect(Set(documentedRequired) == Set(spec.requiredKeys), "\(spec.method): required keys")
        }
    }

    @Test(arguments: [
        ("records/upsert", "field", RecordInput.fields),
        ("search/query", "filter", KindredProtocol.SearchFilters.fields),
        ("occurrences/put", "field", OccurrenceInput.fields),
        ("patterns/correct", "field", PatternsCorrect.Correction.fields),
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

    /// Every documented request of a section about methods (the Params section shows a refused key
    /// on purpose), and a service holding the records the examples name.
    static func documentedRequests() throws -> (ServiceFixture, [(String, JSONValue)]) {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("alice", [rec("note-1", axis: 0), rec("note-2", axis: 1)])
        return (f, try allSections().filter { !$0.methods.isEmpty }.flatMap { Self.requests(Self.examples($0.body), methods: $0.methods) })
    }

    @Test func everyDocumentedRequestUsesOnlyKeysTheMethodAccepts() throws {
        let (f, requests) = try Self.documentedRequests()
        var sent: Set<String> = []
        for (method, params) in requests {
            sent.insert(method)
            let e = f.callError(method, params)
            #expect(e?.data?["unknown"] == nil, "\(method) \(params): \(e?.message ?? "")")
        }
        // Every method has at least one documented example.
        #expect(sent.isSuperset(of: KindredService.routes.map(\.method)), "no example for \(Set(KindredService.routes.map(\.method)).subtracting(sent).sorted())")
    }
}
