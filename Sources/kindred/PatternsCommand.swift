import Foundation
import JSONRPC
import KindredCore
import Service

enum PatternsCommand {
    static let help = """
        kindred patterns — pattern discovery over one owner's records

        USAGE:
          kindred patterns refresh --db PATH [--owner OWNER] [--rebuild] [--json]
          kindred patterns findings --db PATH --owner OWNER [--from DATE] [--to DATE]
                                    [--compare-from DATE] [--compare-to DATE] [--category NAME] [--no-related] [--json]
          kindred patterns show GROUP_ID --db PATH --owner OWNER [--json]

        SUBCOMMANDS:
          refresh    group new and changed occurrences (all owners when --owner is absent);
                     --rebuild regroups everything from scratch, keeping corrections
          findings   recurring patterns with counts of distinct records and their evidence
          show       one group: version, members and the corrections that name it

        OPTIONS:
          --db PATH        the database file (or KINDRED_DB); findings and show need it to exist
          --config PATH    configuration file; --set key=value overrides one key
          --json           print the JSON-RPC result instead of text

        Exit codes: 0 ok, 1 failure (no database at PATH for findings or show), 2 usage (a bad
        option value), 4 group not found.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let valued = ServiceFactory.commonOptions.union(["owner", "from", "to", "compare-from", "compare-to", "category"])
        let args = try Arguments(argv, valued: valued, flags: ["help", "json", "rebuild", "no-related"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard let sub = args.positionals.first else { throw Arguments.UsageError(description: "expected refresh, findings or show") }
        switch sub {
        case "refresh", "findings", "show": break
        default: throw Arguments.UsageError(description: "unknown subcommand '\(sub)' (expected refresh, findings or show)")
        }
        let owner = args.value("owner")
        if sub != "refresh", owner == nil { throw Arguments.UsageError(description: "--owner is required") }
        var params: JSONObject = [:]
        if let owner { params["owner"] = .string(owner) }
        let method: String
        switch sub {
        case "refresh":
            method = args.has("rebuild") ? "patterns/rebuild" : "patterns/refresh"
        case "findings":
            method = "patterns/findings"
            for (flag, key) in [("from", "from"), ("to", "to"), ("compare-from", "compareFrom"), ("compare-to", "compareTo"), ("category", "category")] {
                if let v = args.value(flag) { params[key] = .string(v) }
            }
            if args.has("no-related") { params["includeRelated"] = false }
        default:
            method = "patterns/group"
            guard args.positionals.count == 2, let id = Int64(args.positionals[1]) else {
                throw Arguments.UsageError(description: "show expects one GROUP_ID (an integer)")
            }
            params["groupId"] = .int(id)
        }
        let service = try ServiceFactory.open(args, mustExist: sub != "refresh")
        defer { service.close() }
        let result: JSONValue
        switch call(service, method, params) {
        case .success(let r): result = r
        case .failure(let e) where e.code == .invalidParams:
            let field = e.data?["field"]?.stringValue ?? ""
            let options = ["owner": "--owner", "from": "--from", "to": "--to", "compareFrom": "--compare-from",
                           "compareTo": "--compare-to", "category": "--category", "groupId": "GROUP_ID"]
            throw Arguments.UsageError(description: "\(options[field] ?? field): \(e.data?["reason"]?.stringValue ?? e.message)")
        case .failure(let e):
            Output.err("kindred patterns: \(e.message)")
            return e.code == .notFound ? ExitCode.notFound : ExitCode.failure
        }
        if args.has("json") { Output.json(result); return ExitCode.ok }
        switch sub {
        case "refresh": printRefresh(result)
        case "findings": printFindings(result)
        default: printGroup(result)
        }
        return ExitCode.ok
    }

    static func call(_ service: KindredService, _ method: String, _ params: JSONObject) -> Result<JSONValue, ResponseError> {
        do throws(ResponseError) {
            return .success(try service.call(method, .object(params), context: progressContext(method)))
        } catch {
            return .failure(error)
        }
    }

    /// A request context that draws `$/progress` as a bar on stderr.
    static func progressContext(_ method: String) -> RequestContext {
        let bar = ProgressBar(title: "patterns", total: 100)
        let box = Guarded(bar)
        return RequestContext(id: .null, method: method, workDoneToken: "cli") { _, params in
            guard let value = params["value"] else { return }
            box.with { bar in
                if let pct = value["percentage"]?.intValue { bar.update(Int(pct)) }
                if value["kind"] == "end" { bar.finish() }
            }
        }
    }

    static func printRefresh(_ r: JSONValue) {
        func n(_ k: String) -> Int64 { r[k]?.intValue ?? 0 }
        Output.out("groups created: \(n("groupsCreated")), changed: \(n("groupsChanged")), dormant: \(n("groupsDormant"))")
        Output.out("occurrences assigned: \(n("assigned")), pending: \(n("pending")), waiting for the embedder: \(n("waitingForEmbedder"))")
        Output.out("took \(n("durationMs")) ms")
    }

    static func printFindings(_ r: JSONValue) {
        let findings = r["findings"]?.arrayValue ?? []
        Output.out("\(r["eligibleRecords"]?.intValue ?? 0) eligible records")
        if r["insufficientHistory"] == true { Output.out("Not enough history yet for a recurring pattern.") }
        for f in findings {
            let title = f["label"]?.stringValue ?? f["description"]?.stringValue ?? ""
            let keywords = f["keywords"]?.arrayValue?.compactMap(\.stringValue) ?? []
            Output.out("")
            Output.out("#\(f["groupId"]?.intValue ?? 0) [\(f["kind"]?.stringValue ?? "")/\(f["category"]?.stringValue ?? "")] \(title)"
                + (keywords.isEmpty ? "" : " — \(keywords.joined(separator: ", "))"))
            Output.out("  \(f["summary"]?.stringValue ?? "")")
            if let c = f["comparison"], c["suppressed"] == false, let trend = c["trend"]?.stringValue {
                Output.out("  \(trend): \(c["current"]?["records"]?.intValue ?? 0) of \(c["current"]?["eligible"]?.intValue ?? 0) now, "
                    + "\(c["previous"]?["records"]?.intValue ?? 0) of \(c["previous"]?["eligible"]?.intValue ?? 0) before")
            }
            for e in f["evidence"]?.arrayValue ?? [] {
                Output.out("  - \(e["date"]?.stringValue ?? "?") \(e["recordId"]?.stringValue ?? ""): \"\(e["excerpt"]?.stringValue ?? "")\"")
            }
        }
    }

    static func printGroup(_ r: JSONValue) {
        guard let g = r["group"] else { return }
        Output.out("group \(g["groupId"]?.intValue ?? 0) (\(g["category"]?.stringValue ?? ""), \(g["state"]?.stringValue ?? ""), version \(g["version"]?.intValue ?? 0))")
        Output.out("label: \(g["label"]?.stringValue ?? g["description"]?.stringValue ?? "")")
        for m in g["members"]?.arrayValue ?? [] {
            let score = m["score"]?.intValue.map { " \($0)" } ?? ""
            Output.out("  - occurrence \(m["occurrenceId"]?.intValue ?? 0) [\(m["source"]?.stringValue ?? "")\(score)] "
                + "\(m["recordId"]?.stringValue ?? ""): \"\(m["excerpt"]?.stringValue ?? "")\"")
        }
        for c in r["corrections"]?.arrayValue ?? [] {
            Output.out("  correction \(c["correctionId"]?.intValue ?? 0): \(c["kind"]?.stringValue ?? "")\(c["undone"] == true ? " (undone)" : "")")
        }
    }
}
