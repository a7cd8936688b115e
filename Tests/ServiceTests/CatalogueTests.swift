import Foundation
import Testing
import KindredCore
import KindredProtocol
import JSONRPC
@testable import Service

/// The protocol's catalogue against what the service answers and accepts, the MCP tools' argument
/// schemas and the Python client's method table (the docs' tables: `DocsParamsTests`).
@Suite struct CatalogueTests {
    /// The catalogue: the protocol types of the service's routes (`KindredMethods.all` in KindredKit).
    static let specs = KindredService.requestTypes.map { $0.spec }
    static func spec(_ method: String) -> MethodSpec? { specs.first { $0.method == method } }
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func noMethodIsRoutedTwice() {
        #expect(Self.specs.count == Set(Self.specs.map(\.method)).count, "a method twice in the routes")
    }

    /// Every key of the catalogue is a key the service reads (null counts as absent, so no value is
    /// judged), and the first key an empty params object is refused for is a required one.
    @Test(arguments: specs.map(\.method))
    func theServiceAcceptsEveryCatalogueKeyAndAsksForARequiredOneFirst(method: String) throws {
        let spec = try #require(Self.spec(method))
        let f = try ServiceFixture()
        for key in spec.keys {
            let e = f.callError(method, .object([key: .null]))
            #expect(e?.data?["unknown"] == nil, "\(method) refused \(key): \(e?.message ?? "")")
        }
        let e = f.callError(method, [:])
        if let field = e?.data?["field"]?.stringValue, e?.message.contains("is required") == true {
            #expect(spec.requiredKeys.contains(field), "\(method) asks first for \(field), which the catalogue has as optional")
        } else {
            #expect(spec.requiredKeys.isEmpty, "\(method) accepted {} though the catalogue requires \(spec.requiredKeys)")
        }
    }

    /// Every documented request the service answers gets an answer whose fields are the catalogue's
    /// result fields, and which the method's `Result` type reads.
    @Test func everyDocumentedAnswerHasTheCataloguesResultFieldsAndReadsAsItsResultType() throws {
        let (f, requests) = try DocsParamsTests.documentedRequests()
        var answered: Set<String> = []
        for (method, params) in requests {
            guard let answer = try? f.call(method, params), let type = KindredService.requestTypes.first(where: { $0.method == method }) else { continue }
            answered.insert(method)
            let fields = Set(answer.objectValue.map { o in Array(o.makeIterator()).map(\.key) } ?? [])
            #expect(fields.subtracting(["usage"]).isSubset(of: type.spec.result), "\(method): \(fields.subtracting(type.spec.result).sorted())")
            #expect(Self.reads(type, answer) == nil, "\(method): \(Self.reads(type, answer) ?? "")")
        }
        #expect(answered.count >= 15, "only \(answered.sorted()) answered")
    }

    /// Why `answer` does not read as `R.Result`, or nil.
    static func reads<R: KindredRequest>(_ type: R.Type, _ answer: JSONValue) -> String? {
        do {
            _ = try JSONDecoder().decode(R.Result.self, from: Data(JSONWriter.bytes(answer)))
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// A tool's arguments are keys of its method (or of the correction it wraps), without `owner`,
    /// and the schema requires every argument the method requires.
    @Test func everyMCPToolTakesTheCataloguesKeysOfItsMethod() throws {
        for tool in MCPToolCatalog.specs {
            let spec = try #require(Self.spec(tool.method), "\(tool.name) calls \(tool.method), which the catalogue lacks")
            let keys = tool.wrap == nil ? spec.keys : PatternsCorrect.Correction.fields
            #expect(Set(tool.argumentNames).isSubset(of: Set(keys)), "\(tool.name): \(Set(tool.argumentNames).subtracting(keys).sorted())")
            let required = Set((tool.input["required"]?.arrayValue ?? []).compactMap(\.stringValue))
            #expect(required.isSubset(of: Set(tool.argumentNames)), "\(tool.name)")
            if tool.wrap == nil {
                let methodRequires = Set(spec.requiredKeys).subtracting(["owner"])
                #expect(methodRequires.isSubset(of: required), "\(tool.name) does not require \(methodRequires.subtracting(required).sorted())")
            }
        }
    }

    /// `METHODS` in the Python client: one entry per method, its name the method's in snake case.
    @Test func thePythonClientsMethodTableIsTheCatalogue() throws {
        let text = try String(contentsOf: Self.repo.appendingPathComponent("clients/python/kindred_client/client.py"), encoding: .utf8)
        let table = try #require(text.range(of: "METHODS = {")).upperBound
        let body = text[table...].prefix { $0 != "}" }
        var methods: [String: String] = [:]
        for line in body.split(separator: "\n") {
            let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
            guard parts.count >= 4 else { continue }
            methods[String(parts[1])] = String(parts[3])
        }
        #expect(Set(methods.values) == Set(Self.specs.map(\.method)))
        for (name, method) in methods { #expect(name == Self.snakeCase(method), "\(name) → \(method)") }
    }

    static func snakeCase(_ method: String) -> String {
        var out = ""
        for c in method {
            if c == "/" { out += "_" } else if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }

    /// The nested objects the service reads strictly take the protocol's fields.
    @Test func nestedObjectsTakeTheProtocolsFields() {
        let kindFields = Set(PatternsCorrect.Correction.kinds.flatMap(\.fields) + ["kind", "groupId", "note"])
        #expect(kindFields == Set(PatternsCorrect.Correction.fields))
    }
}
