import Testing
import KindredCore
import JSONRPC
import MCP
@testable import Service

/// The MCP tools are the service's methods for one owner: arguments checked by the method's own
/// params, the owner fixed by the server, errors as tool results naming the argument.
@Suite struct MCPToolTests {
    static func tool(_ f: ServiceFixture, _ name: String, owner: String = "alice") throws -> Tool {
        try #require(f.service.mcpTools(owner: owner).first { $0.name == name })
    }

    static func run(_ t: Tool, _ arguments: JSONObject) -> ToolResult { t.run(arguments, RequestContext(id: 1, method: "tools/call")) }

    @Test func everyToolHasObjectSchemasWithoutAnOwner() throws {
        for spec in MCPToolCatalog.specs {
            #expect(spec.input["type"] == "object" && spec.output["type"] == "object", "\(spec.name)")
            #expect(spec.input["additionalProperties"] == false, "\(spec.name)")
            #expect(!spec.argumentNames.contains("owner"), "\(spec.name)")
            #expect(spec.description.count > 100, "\(spec.name)")
        }
        #expect(Set(MCPToolCatalog.specs.map(\.name)) == ["search", "get_record", "similar", "findings", "group", "themes", "refresh_patterns", "correct", "index_status"])
    }

    @Test func toolsSeeOnlyTheirOwnersRecords() throws {
        let f = try ServiceFixture()
        _ = try f.upsert("alice", [rec("a-1", axis: 0)])
        _ = try f.upsert("bob", [rec("b-1", axis: 0)])
        #expect(Self.run(try Self.tool(f, "index_status"), [:]) == .success(try f.call("index/status", ["owner": "alice"])))
        guard case .success(let got) = Self.run(try Self.tool(f, "get_record"), ["id": "a-1"]) else { Issue.record("get_record failed"); return }
        #expect(got["record"]?["id"] == "a-1")
        guard case .failure(let message, let details) = Self.run(try Self.tool(f, "get_record"), ["id": "b-1"]) else {
            Issue.record("bob's record was read through alice's tools"); return
        }
        #expect(message.contains("not found"))
        #expect(details?["owner"] == nil)
        guard case .failure(let m2, let d2) = Self.run(try Self.tool(f, "index_status"), ["owner": "bob"]) else { Issue.record("owner accepted"); return }
        #expect(m2.hasPrefix("Invalid argument `owner`"))
        #expect(d2?["field"] == "owner")
    }

    @Test func badArgumentsAreNamedAsTheToolsArguments() throws {
        let f = try ServiceFixture()
        guard case .failure(let m1, let d1) = Self.run(try Self.tool(f, "search"), ["text": "x", "filters": ["kind": ["note"]]]) else { Issue.record(); return }
        #expect(m1.hasPrefix("Invalid argument `filters.kind`"))
        #expect(d1?["code"] == .int(-32602))
        guard case .failure(let m2, _) = Self.run(try Self.tool(f, "correct"), ["kind": "dismiss", "groupId": 1, "moveOut": [2]]) else { Issue.record(); return }
        #expect(m2.hasPrefix("Invalid argument `moveOut`"))
        guard case .failure(let m3, _) = Self.run(try Self.tool(f, "refresh_patterns"), ["workDoneToken": "t"]) else { Issue.record(); return }
        #expect(m3 == "Invalid argument `workDoneToken`: is not an argument of refresh_patterns (arguments: none)")
        guard case .failure(let m4, _) = Self.run(try Self.tool(f, "search"), ["text": "x", "limit": 0]) else { Issue.record(); return }
        #expect(m4.hasPrefix("Invalid argument `limit`"))
    }

    @Test func readToolsRunSideBySideAndWritesInOrder() throws {
        let f = try ServiceFixture()
        let tools = Dictionary(uniqueKeysWithValues: f.service.mcpTools(owner: "o").map { ($0.name, $0.readOnly) })
        #expect(tools == ["search": true, "get_record": true, "similar": true, "findings": true, "group": true, "themes": true,
                          "refresh_patterns": false, "correct": false, "index_status": true])
    }
}
