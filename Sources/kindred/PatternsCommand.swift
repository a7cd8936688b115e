import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum PatternsCommand {
    static let help = """
        kindred patterns — pattern discovery over one owner's records

        USAGE:
          kindred patterns refresh --db PATH [--owner OWNER] [--rebuild] [--create] [--json]
          kindred patterns findings --db PATH --owner OWNER [--kind KIND]... [--limit N] [--evidence N] [--all]
                                    [--from DATE] [--to DATE] [--compare-from DATE] [--compare-to DATE]
                                    [--category NAME] [--no-related] [--json]
          kindred patterns show GROUP_ID --db PATH --owner OWNER [--json]
          kindred patterns themes --db PATH --owner OWNER [--kind KIND]... [--category NAME] [--from DATE] [--to DATE]
                                  [--limit N] [--json]
          kindred patterns map --db PATH --owner OWNER [--out FILE.svg] [--category NAME] [--from DATE] [--to DATE] [--json]
          kindred patterns timeline --db PATH --owner OWNER [--out FILE.svg] [--from DATE] [--to DATE]
                                    [--compare-from DATE] [--compare-to DATE] [--category NAME] [--limit N] [--json]
          kindred patterns correct dismiss|pin|split|merge|undo ... --db PATH --owner OWNER [--note TEXT] [--json]
          kindred patterns label GROUP_ID LABEL --db PATH --owner OWNER [--description TEXT] [--json]
          kindred patterns label GROUP_ID --clear --db PATH --owner OWNER [--json]

        SUBCOMMANDS:
          refresh    group new and changed occurrences (all owners when --owner is absent);
                     --rebuild regroups everything from scratch, keeping corrections
          findings   recurring patterns ranked 1…N, with counts of distinct records and their
                     evidence: by default the first 10 findings with 3 evidence lines each (--limit N,
                     --evidence N, --all for everything); --kind counts only records of that kind
                     (repeat it for several)
          show       one group: members with how each got there, its theme, the corrections that
                     name it with their members and notes
          themes     broader patterns: groups of one category that share a broader situation, each
                     with its label, groups and counts of distinct records over the eligible ones
                     (off unless patterns.themes is on; it says how)
          map        the groups as an SVG picture, placed by similarity (PCA of their centroids),
                     circle area = distinct records, colour = category (or kind)
          timeline   the top recurring findings as an SVG picture: records per month over the
                     month's eligible records; with --compare-from/--compare-to, both fractions
          correct    tell the grouping it was wrong, kept by every later refresh (`kindred patterns
                     correct --help`): dismiss an entry from a group, pin it there, split a group,
                     merge two, undo a correction
          label      name a group (until its members change); --clear takes the name away

        OPTIONS:
          --db PATH        the database file (or KINDRED_DB); it must exist (refresh: unless --create)
          --owner OWNER    whose patterns; an owner without records is answered with the owners there are
          --kind KIND      findings, themes: only records of this kind; a kind none of the owner's
                           records has is answered with the kinds there are
          --config PATH    configuration file; --set key=value overrides one key
          --json           print the JSON-RPC result instead of text
          --out FILE       map, timeline: write the SVG to FILE (else to stdout)
          --limit N        timeline: findings drawn, 1-24 (default 6); findings: see above

        Exit codes: 0 ok, 1 failure (no database at PATH), 2 usage (a bad option value or kind),
        4 not found (a group, a correction, or an owner without records).
        """

    static let subcommands = ["refresh", "findings", "show", "themes", "map", "timeline", "correct", "label"]

    static func run(_ argv: [String]) throws -> Int32 {
        if argv.first == "correct" { return try CorrectCommand.run(Array(argv.dropFirst())) }
        if argv.first == "label" { return try CorrectCommand.label(Array(argv.dropFirst())) }
        let valued = ServiceFactory.commonOptions.union(["owner", "from", "to", "compare-from", "compare-to", "category", "kind", "limit",
                                                          "evidence", "out"])
        let args = try Arguments(argv, valued: valued, flags: ["help", "json", "rebuild", "no-related", "all", "create"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let expected = "expected " + subcommands.dropLast().joined(separator: ", ") + " or " + subcommands.last!
        guard let sub = args.positionals.first else { throw Arguments.UsageError(description: expected) }
        guard subcommands.contains(sub) else { throw Arguments.UsageError(description: "unknown subcommand '\(sub)' (\(expected))") }
        if sub == "map" || sub == "timeline" { return try PictureCommand.run(sub, args) }
        let owner = args.value("owner")
        if sub != "refresh", owner == nil { throw Arguments.UsageError(description: "--owner is required") }
        if args.has("create") && sub != "refresh" { throw Arguments.UsageError(description: "--create is an option of refresh only") }
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
        let service = try ServiceFactory.open(args, missing: sub == "refresh" ? .refuseUnlessCreate : .refuse)
        defer { service.close() }
        if sub != "refresh", let owner {
            try Inventory.requireOwner(service, owner)
            try Inventory.requireKinds(service, owner: owner, args.values("kind"))
        }
        let result = try answer(call(service, method, params), options: [
            "owner": "--owner", "from": "--from", "to": "--to", "compareFrom": "--compare-from", "compareTo": "--compare-to",
            "category": "--category", "groupId": "GROUP_ID", "kinds": "--kind", "limit": "--limit", "evidenceLimit": "--evidence"])
        if args.has("json") { Output.json(result); return ExitCode.ok }
        switch sub {
        case "refresh": printRefresh(result)
        case "findings": printFindings(result, period: args.value("from") != nil || args.value("to") != nil)
        case "themes": printThemes(result, themesOn: service.settings.patterns.themes)
        default: printGroup(result)
        }
        return ExitCode.ok
    }

    /// The result of a call, or its error as the command line tells it: a refused parameter is a
    /// usage error naming the option that gave it (`options` maps parameters to options), "not
    /// found" is exit 4, anything else exit 1.
    static func answer(_ result: Result<JSONValue, ResponseError>, options: [String: String]) throws -> JSONValue {
        switch result {
        case .success(let r): return r
        case .failure(let e) where e.code == .invalidParams || (e.code == .limitExceeded && e.data?["field"] != nil):
            let path = e.data?["field"]?.stringValue ?? ""
            let field = path.split(separator: "[").first.map(String.init) ?? ""
            let option = options[path] ?? options[field] ?? path
            let reason = e.data?["reason"]?.stringValue ?? e.data?["limit"]?.intValue.map { "must be at most \($0)" } ?? e.message
            throw Arguments.UsageError(description: "\(option): \(reason)")
        case .failure(let e):
            throw CommandError(description: e.message, code: e.code == .notFound ? ExitCode.notFound : ExitCode.failure)
        }
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
}
