import Foundation
import Testing
import KindredProtocol
import JSONRPC

/// docs/methods.md's "Error codes" table and the protocol's one list of codes agree, code for
/// code and name for name (the Python client's classes are checked against the same table in
/// tests-e2e/test_python_client.py).
@Suite struct DocsErrorCodesTests {
    /// (code, name) of each row of the table under "## Error codes".
    static func documentedRows() throws -> [(Int, String)] {
        let text = try DocsParamsTests.doc("methods.md")
        let lines = text.split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex(of: "## Error codes"))
        var rows: [(Int, String)] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("| -"), cells.count >= 2, let code = Int(cells[0]) else { continue }
            rows.append((code, cells[1]))
        }
        return rows
    }

    @Test func theTableListsExactlyTheProtocolsCodes() throws {
        let documented = try Self.documentedRows()
        #expect(documented.count >= 15)
        #expect(documented.map { "\($0.0) \($0.1)" } == ErrorCode.documented.map { "\($0.code.rawValue) \($0.name)" })
    }

    @Test func theServerAnswersWithTheProtocolsCodes() {
        // ResponseError's code is the protocol's type: the same values, not a copy of them.
        let e = ResponseError(code: .shardUnavailable, message: "x")
        #expect(e.code == ErrorCode(rawValue: -32060))
        #expect(ResponseError.invalidParams(field: "owner", reason: "is required").code.rawValue == -32602)
    }
}
