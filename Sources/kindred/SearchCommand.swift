import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum SearchCommand {
    static let help = """
        kindred search — natural-language search over one owner's records

        USAGE: kindred search --db PATH --owner OWNER [--mode hybrid|semantic|keyword] [--limit N]
                              [--kind K]... [--tag T]... [--from DATE] [--to DATE] [--json] QUERY

        Prints the ranked records with the passage that matched. Exit status: 0 with results,
        4 when nothing matched (stderr says so, with the owners there are, when the owner has no
        records at all), 1 failure (no database at PATH), 2 usage error (a bad option value, an
        empty QUERY, or a --kind that none of the owner's records has: stderr lists its kinds).

        OPTIONS:
          --db PATH          SQLite file (must exist)
          --owner OWNER      whose records to search
          --mode MODE        hybrid (default), semantic or keyword
          --limit N          number of results (default 10)
          --kind K           only records of this kind (repeatable)
          --tag T            only records with this tag (repeatable; any of them)
          --from DATE        only records dated on or after DATE
          --to DATE          only records dated on or before DATE
          --json             print the search/query result as JSON
          --config PATH      configuration file
          --set key=value    override one configuration key
          --help             show this help
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner", "mode", "limit", "kind", "tag", "from", "to"]), flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let owner = try args.required("owner")
        guard !args.positionals.isEmpty else { throw Arguments.UsageError(description: "QUERY is required") }
        let query = args.positionals.joined(separator: " ")
        guard query.contains(where: { !$0.isWhitespace }) else { throw Arguments.UsageError(description: "QUERY is empty: give the words to search for") }
        var params: JSONObject = ["owner": .string(owner), "text": .string(query)]
        if let mode = args.value("mode") { params["mode"] = .string(mode) }
        if let limit = try args.int("limit") { params["limit"] = .from(limit) }
        var filters: JSONObject = [:]
        if !args.values("kind").isEmpty { filters["kinds"] = .from(args.values("kind")) }
        if !args.values("tag").isEmpty { filters["tags"] = .from(args.values("tag")) }
        if let f = args.value("from") { filters["from"] = .string(f) }
        if let t = args.value("to") { filters["to"] = .string(t) }
        if !filters.isEmpty { params["filters"] = .object(filters) }
        let service = try ServiceFactory.open(args, missing: .refuse)
        defer { service.close() }
        try Inventory.requireKinds(service, owner: owner, args.values("kind"))
        let result = try ServiceCall.call(service, "search/query", params, options: [
            "owner": "--owner", "text": "QUERY", "mode": "--mode", "limit": "--limit", "filters.kinds": "--kind",
            "filters.tags": "--tag", "filters.from": "--from", "filters.to": "--to", "filters": "--from/--to",
        ])
        let hits = result["results"]?.arrayValue ?? []
        if args.has("json") {
            Output.json(result)
        } else {
            if let reason = result["degraded"]?["reason"]?.stringValue { Output.err("note: \(reason)") }
            Output.out("\(hits.count) result\(hits.count == 1 ? "" : "s") for \"\(query)\" (\(result["mode"]?.stringValue ?? "?") mode)")
            for (i, h) in hits.enumerated() {
                let score = h["score"]?.doubleValue.map { String(format: "%.4f", $0) } ?? "?"
                let date = h["date"]?.stringValue ?? "undated"
                let kind = h["kind"]?.stringValue ?? "record"
                Output.out("\(i + 1). \(h["id"]?.stringValue ?? "?") [\(kind), \(date)] score \(score)")
                Output.out("   \(h["passage"]?["text"]?.stringValue ?? "")")
            }
        }
        if hits.isEmpty {
            let records = try ServiceCall.call(service, "index/status", ["owner": .string(owner)], options: ["owner": "--owner"])["records"]?.intValue ?? 0
            Output.err(records == 0 ? "kindred search: \(try Inventory.noRecords(service, owner: owner))"
                                    : "kindred search: nothing matched among the \(records) records of owner '\(owner)'")
            return ExitCode.notFound
        }
        return ExitCode.ok
    }
}
