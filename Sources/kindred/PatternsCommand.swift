import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum PatternsCommand {
    static let help = """
        kindred patterns — pattern discovery over one owner's records

        USAGE:
          kindred patterns refresh --db PATH [--owner OWNER] [--rebuild] [--json]
          kindred patterns findings --db PATH --owner OWNER [--kind KIND]... [--limit N] [--evidence N] [--all]
                                    [--from DATE] [--to DATE] [--compare-from DATE] [--compare-to DATE]
                                    [--category NAME] [--no-related] [--json]
          kindred patterns show GROUP_ID --db PATH --owner OWNER [--json]
          kindred patterns themes --db PATH --owner OWNER [--kind KIND]... [--category NAME] [--from DATE] [--to DATE]
                                  [--limit N] [--json]
          kindred patterns map --db PATH --owner OWNER [--out FILE.svg] [--category NAME] [--from DATE] [--to DATE] [--json]
          kindred patterns timeline --db PATH --owner OWNER [--out FILE.svg] [--from DATE] [--to DATE]
                                    [--compare-from DATE] [--compare-to DATE] [--category NAME] [--limit N] [--json]

        SUBCOMMANDS:
          refresh    group new and changed occurrences (all owners when --owner is absent);
                     --rebuild regroups everything from scratch, keeping corrections
          findings   recurring patterns with counts of distinct records and their evidence: by default
                     the first 10 findings with 3 evidence lines each (--limit N, --evidence N, --all for
                     everything); --kind counts only records of that kind (repeat it for several)
          show       one group: version, members, its theme and the corrections that name it
          themes     broader patterns: groups of one category that share a broader situation, each
                     with its label, groups and counts of distinct records over the eligible ones
          map        the groups as an SVG picture, placed by similarity (PCA of their centroids),
                     circle area = distinct records, colour = category
          timeline   the top recurring findings as an SVG picture: records per month over the
                     month's eligible records; with --compare-from/--compare-to, both fractions

        OPTIONS:
          --db PATH        the database file (or KINDRED_DB); findings and show need it to exist
          --config PATH    configuration file; --set key=value overrides one key
          --json           print the JSON-RPC result instead of text
          --out FILE       map, timeline: write the SVG to FILE (else to stdout)
          --limit N        timeline: findings drawn, 1-24 (default 6); findings: see above

        Exit codes: 0 ok, 1 failure (no database at PATH for findings or show), 2 usage (a bad
        option value), 4 group not found.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let valued = ServiceFactory.commonOptions.union(["owner", "from", "to", "compare-from", "compare-to", "category", "kind", "limit",
                                                          "evidence", "out"])
        let args = try Arguments(argv, valued: valued, flags: ["help", "json", "rebuild", "no-related", "all"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard let sub = args.positionals.first else { throw Arguments.UsageError(description: "expected refresh, findings, show, themes, map or timeline") }
        switch sub {
        case "refresh", "findings", "show", "themes", "map", "timeline": break
        default: throw Arguments.UsageError(description: "unknown subcommand '\(sub)' (expected refresh, findings, show, themes, map or timeline)")
        }
        if sub == "map" || sub == "timeline" { return try PictureCommand.run(sub, args) }
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
            if !args.values("kind").isEmpty { params["kinds"] = .from(args.values("kind")) }
            if let n = try args.int("limit") { params["limit"] = .from(n) } else if !args.has("all") && !args.has("json") { params["limit"] = 10 }
            if let n = try args.int("evidence") { params["evidenceLimit"] = .from(n) } else if !args.has("all") && !args.has("json") { params["evidenceLimit"] = 3 }
        case "themes":
            method = "patterns/themes"
            for flag in ["from", "to", "category"] { if let v = args.value(flag) { params[flag] = .string(v) } }
            if !args.values("kind").isEmpty { params["kinds"] = .from(args.values("kind")) }
            if let n = try args.int("limit") { params["limit"] = .from(n) }
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
        case .failure(let e) where e.code == .invalidParams || (e.code == .limitExceeded && e.data?["field"] != nil):
            let field = (e.data?["field"]?.stringValue ?? "").split(separator: "[").first.map(String.init) ?? ""
            let options = ["owner": "--owner", "from": "--from", "to": "--to", "compareFrom": "--compare-from",
                           "compareTo": "--compare-to", "category": "--category", "groupId": "GROUP_ID",
                           "kinds": "--kind", "limit": "--limit", "evidenceLimit": "--evidence"]
            let reason = e.data?["reason"]?.stringValue ?? e.data?["limit"]?.intValue.map { "must be at most \($0)" } ?? e.message
            throw Arguments.UsageError(description: "\(options[field] ?? field): \(reason)")
        case .failure(let e):
            Output.err("kindred patterns: \(e.message)")
            return e.code == .notFound ? ExitCode.notFound : ExitCode.failure
        }
        if args.has("json") { Output.json(result); return ExitCode.ok }
        switch sub {
        case "refresh": printRefresh(result)
        case "findings": printFindings(result)
        case "themes": printThemes(result)
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
        let bar = ProgressBar(title: "patterns", total: 100, percent: true)
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
        for line in RefreshSummary.lines(r) { Output.out(line) }
    }

    static func printFindings(_ r: JSONValue) {
        let findings = r["findings"]?.arrayValue ?? []
        let eligible = r["eligibleRecords"]?.intValue ?? 0
        let total = r["total"]?.intValue ?? Int64(findings.count)
        Output.out("\(total) finding\(total == 1 ? "" : "s") over \(eligible) eligible record\(eligible == 1 ? "" : "s")"
            + (Int64(findings.count) < total ? ", the first \(findings.count) shown" : ""))
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
                Output.out("  - \(e["date"]?.stringValue ?? "undated") \(e["recordId"]?.stringValue ?? ""): \"\(shorten(e["excerpt"]?.stringValue ?? "", 100))\"")
            }
            if let more = f["moreEvidence"]?.intValue, more > 0 { Output.out("  … and \(more) more record\(more == 1 ? "" : "s") (--evidence N or --all)") }
        }
        if let left = Optional(total - Int64(findings.count)), left > 0 {
            Output.out("")
            Output.out("… and \(left) more finding\(left == 1 ? "" : "s") (--limit N or --all)")
        }
    }

    /// `s` cut at a word boundary to at most `max` characters, with "…" when cut; on one line.
    static func shorten(_ s: String, _ max: Int) -> String {
        let flat = s.split(whereSeparator: { $0.isNewline }).joined(separator: " ")
        guard flat.count > max else { return flat }
        let head = flat.prefix(max - 1)
        let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
        return cut + "…"
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
        if let t = r["theme"], t != .null {
            Output.out("theme \(t["themeId"]?.intValue ?? 0): \(t["label"]?.stringValue ?? "") (groups \((t["groups"]?.arrayValue ?? []).compactMap(\.intValue).map(String.init).joined(separator: ", ")))")
        }
        for c in r["corrections"]?.arrayValue ?? [] {
            Output.out("  correction \(c["correctionId"]?.intValue ?? 0): \(c["kind"]?.stringValue ?? "")\(c["undone"] == true ? " (undone)" : "")")
        }
    }

    static func printThemes(_ r: JSONValue) {
        let themes = r["themes"]?.arrayValue ?? []
        let eligible = r["eligibleRecords"]?.intValue ?? 0
        let total = r["total"]?.intValue ?? Int64(themes.count)
        Output.out("\(total) theme\(total == 1 ? "" : "s") over \(eligible) eligible record\(eligible == 1 ? "" : "s")"
            + (Int64(themes.count) < total ? ", the first \(themes.count) shown" : ""))
        for t in themes {
            let groups = (t["groups"]?.arrayValue ?? []).compactMap(\.intValue).map { "#\($0)" }
            Output.out("")
            Output.out("theme \(t["themeId"]?.intValue ?? 0) [\(t["category"]?.stringValue ?? "")] \(t["label"]?.stringValue ?? "")")
            Output.out("  \(t["summary"]?.stringValue ?? "")")
            Output.out("  groups: \(groups.joined(separator: ", "))")
            for e in t["evidence"]?.arrayValue ?? [] {
                Output.out("  - #\(e["groupId"]?.intValue ?? 0) \(e["date"]?.stringValue ?? "undated") \(e["recordId"]?.stringValue ?? ""): \"\(shorten(e["excerpt"]?.stringValue ?? "", 100))\"")
            }
        }
    }
}
