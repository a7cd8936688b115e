import KindredCLI
import KindredCore
import Service

/// `kindred records get|delete`: one record as stored, and deleting records, through `records/get`
/// and `records/delete`.
enum RecordsCommand {
    static let help = """
        kindred records — read or delete one owner's records

        USAGE: kindred records get ID --db PATH --owner OWNER [--passages] [--json]
               kindred records delete ID... --db PATH --owner OWNER [--json]

        get prints the record as stored (revision, kind, date, tags, permissions, whether it is in
        the search index) and its text; --passages adds the passages it is matched by.
        delete removes the records at once from search and patterns. Each leaves a tombstone, so an
        old revision sent again (`kindred ingest` of an old file) cannot bring it back; a higher
        revision does (`kindred tombstones --help`). To change a record, ingest it with a higher
        revision.

        OPTIONS:
          --db PATH          SQLite file (must exist)
          --owner OWNER      whose records
          --passages         get: also the record's passages
          --json             print the records/get or records/delete result as JSON
          --config PATH      configuration file
          --set key=value    override one configuration key
          --help             show this help

        Exit status: 0 done, 1 failure (no database at PATH), 2 usage error, 4 not found (get: no
        such record, or it was deleted; delete: some ID was not there, listed on stderr).
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner"]), flags: ["help", "json", "passages"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard let sub = args.positionals.first, ["get", "delete"].contains(sub) else {
            throw Arguments.UsageError(description: args.positionals.isEmpty ? "expected get or delete"
                                                                             : "unknown subcommand '\(args.positionals[0])' (expected get or delete)")
        }
        let ids = Array(args.positionals.dropFirst())
        if sub == "get" {
            guard ids.count == 1 else { throw Arguments.UsageError(description: "get expects one ID") }
        } else {
            guard !ids.isEmpty else { throw Arguments.UsageError(description: "delete expects one or more ID") }
            if args.has("passages") { throw Arguments.UsageError(description: "--passages is an option of get") }
        }
        let owner = try args.required("owner")
        let service = try ServiceFactory.open(args, missing: .refuse)
        defer { service.close() }
        let options = ["owner": "--owner", "id": "ID", "ids": "ID"]
        if sub == "delete" {
            try Inventory.requireOwner(service, owner)
            let result = try ServiceCall.call(service, "records/delete", ["owner": .string(owner), "ids": .from(ids)], options: options)
            let deleted = (result["deleted"]?.arrayValue ?? []).compactMap(\.stringValue)
            let missing = (result["missing"]?.arrayValue ?? []).compactMap(\.stringValue)
            if args.has("json") {
                Output.json(result)
            } else {
                Output.out("\(deleted.count) record\(deleted.count == 1 ? "" : "s") deleted" + (deleted.isEmpty ? "" : ": " + deleted.joined(separator: ", ")))
            }
            if !missing.isEmpty {
                Output.err("kindred records: owner '\(owner)' has no record " + missing.map { "'\($0)'" }.joined(separator: ", "))
                return ExitCode.notFound
            }
            return ExitCode.ok
        }
        var params: JSONObject = ["owner": .string(owner), "id": .string(ids[0])]
        if args.has("passages") { params["passages"] = true }
        let result: JSONValue
        do {
            result = try ServiceCall.call(service, "records/get", params, options: options)
        } catch let e as CommandError where e.code == ExitCode.notFound {
            // An owner without records says which owners there are.
            try Inventory.requireOwner(service, owner)
            throw e
        }
        if args.has("json") { Output.json(result); return ExitCode.ok }
        for line in describe(result) { Output.out(line) }
        return ExitCode.ok
    }

    /// A `records/get` result for people: a header line, the text, then its passages when asked.
    static func describe(_ r: JSONValue) -> [String] {
        guard let rec = r["record"] else { return [] }
        var about = ["revision \(rec["revision"]?.intValue ?? 0)"]
        about.append(rec["kind"]?.stringValue.map { "kind \($0)" } ?? "no kind")
        about.append(rec["date"]?.stringValue ?? "undated")
        let tags = (rec["tags"]?.arrayValue ?? []).compactMap(\.stringValue)
        if !tags.isEmpty { about.append("tags " + tags.joined(separator: ", ")) }
        let search = rec["permissions"]?["search"] != false, patterns = rec["permissions"]?["patterns"] != false
        var out = ["\(rec["id"]?.stringValue ?? "") (\(about.joined(separator: "; ")))",
                   "search: \(search ? "allowed" : "not allowed")\(r["indexed"] == true ? ", indexed" : search ? ", waiting for the embedder" : ""); "
                   + "patterns: \(patterns ? "allowed" : "not allowed")"]
        if case .object(let meta)? = rec["metadata"], !meta.isEmpty {
            out.append("metadata: " + meta.keys.sorted().map { "\($0)=\(JSONWriter.string(meta[$0]!))" }.joined(separator: ", "))
        }
        out.append("")
        out.append(rec["text"]?.stringValue ?? "")
        if let passages = r["passageList"]?.arrayValue {
            out.append("")
            out.append("\(passages.count) passage\(passages.count == 1 ? "" : "s"):")
            for p in passages {
                out.append("  \(p["index"]?.intValue ?? 0) [\(p["start"]?.intValue ?? 0)–\(p["end"]?.intValue ?? 0)] \(p["text"]?.stringValue ?? "")")
            }
        }
        return out
    }
}
