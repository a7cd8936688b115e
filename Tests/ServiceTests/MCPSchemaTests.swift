import Foundation
import Testing
import KindredCore
import JSONRPC
@testable import MCP
@testable import Service

/// The MCP tools' schemas, generated from the protocol types, against the `tools/list` answer of the
/// hand-written catalogue they replaced (`Fixtures/mcp-tools-list.json`): the same tools, texts,
/// annotations and argument schemas; each answer's schema the old one with more said (more fields,
/// more of them required, an optional field allowed to be null), never less.
@Suite struct MCPSchemaTests {
    static func fixture() throws -> [JSONValue] {
        let url = try #require(Bundle.module.url(forResource: "mcp-tools-list", withExtension: "json", subdirectory: "Fixtures"))
        return try #require(try JSONParser.parse(String(contentsOf: url, encoding: .utf8))["tools"]?.arrayValue)
    }

    static let tools = KindredService.mcpTools(owner: "o") { _, _, _ in .null }.map(\.listing)

    @Test func theToolsTextsAndArgumentSchemasAreTheCataloguesBefore() throws {
        let before = try Self.fixture()
        #expect(Self.tools.map { $0["name"] } == before.map { $0["name"] })
        for (now, then) in zip(Self.tools, before) {
            for key in ["title", "description", "annotations"] { #expect(now[key] == then[key], "\(now["name"] ?? .null).\(key)") }
            #expect(Self.unordered(now["inputSchema"]) == Self.unordered(then["inputSchema"]), "\(now["name"] ?? .null)")
        }
    }

    /// The one thing the types say less of: `PatternsCorrect.Result.affectedGroups` is optional (a
    /// theme correction's answer is about `affectedThemes`), where the hand-written schema required it.
    static let loosened = ["correct: affectedGroups not required"]

    @Test func eachAnswerSchemaSaysAtLeastWhatTheCatalogueSaidBefore() throws {
        var lost: [String] = []
        for (now, then) in zip(Self.tools, try Self.fixture()) {
            lost += Self.lost(from: then["outputSchema"], in: now["outputSchema"], at: now["name"]?.stringValue ?? "")
        }
        #expect(lost == Self.loosened)
    }

    @Test func everyNoteNamesAFieldOfItsType() {
        for spec in MCPToolCatalog.specs { #expect(spec.strayNotes == [], "\(spec.name)") }
    }

    /// Each value an argument's schema allows is one the service takes, and no other: the tool
    /// (arguments given as `base`, the value at `path`) fails for another reason or none.
    static let enums: [(tool: String, path: [String], base: JSONObject)] = [
        ("search", ["mode"], ["text": "x"]), ("search", ["filters", "tagsMode"], ["text": "x"]), ("correct", ["kind"], [:]),
    ]

    @Test(arguments: enums)
    func theAllowedValuesAreTheServices(tool name: String, path: [String], base: JSONObject) throws {
        let f = try ServiceFixture()
        let tool = try MCPToolTests.tool(f, name)
        var schema = tool.inputSchema
        for key in path { schema = try #require(schema["properties"]?[key]) }
        let values = try #require(schema["enum"]?.arrayValue)
        func refused(_ value: JSONValue) -> String? {
            var arguments = base
            arguments[path[0]] = path.count == 1 ? value : [path[1]: value]
            guard case .failure(_, let details) = MCPToolTests.run(tool, arguments) else { return nil }
            return details?["field"]?.stringValue
        }
        for value in values { #expect(refused(value) != path.joined(separator: "."), "\(value)") }
        #expect(refused("none of these") == path.joined(separator: "."))
    }

    /// A schema as nested dictionaries, so that key order does not count.
    static func unordered(_ v: JSONValue?) -> AnyHashable? {
        switch v {
        case .object(let o)?: return Dictionary(uniqueKeysWithValues: o.makeIterator().map { ($0.key, unordered($0.value)) }) as [String: AnyHashable?]
        case .array(let a)?: return a.map(unordered) as [AnyHashable?]
        case let other?: return other
        case nil: return nil
        }
    }

    /// What `old` says that `new` does not: a type changed (beyond allowing null), a required key
    /// or a property dropped, a description, enum or bound changed.
    static func lost(from old: JSONValue?, in new: JSONValue?, at path: String) -> [String] {
        guard let old else { return [] }
        guard let new else { return ["\(path): gone"] }
        var lost: [String] = []
        if let type = old["type"], new["type"] != type, new["type"] != [type, "null"] { lost.append("\(path): type \(new["type"] ?? .null)") }
        for key in ["description", "enum", "minimum", "maximum", "minItems"] where old[key] != nil && new[key] != old[key] {
            lost.append("\(path).\(key)")
        }
        let required = Set(new["required"]?.arrayValue ?? [])
        for key in old["required"]?.arrayValue ?? [] where !required.contains(key) { lost.append("\(path): \(key.stringValue ?? "") not required") }
        for (key, property) in old["properties"]?.objectValue ?? [:] {
            lost += Self.lost(from: property, in: new["properties"]?[key], at: "\(path).\(key)")
        }
        return lost + Self.lost(from: old["items"], in: new["items"], at: "\(path)[]")
    }
}
