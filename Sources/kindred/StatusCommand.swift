import Foundation
import KindredCLI
import KindredCore
import Service

enum StatusCommand {
    static let help = """
        kindred status — what the database holds: records, search index, model, patterns

        USAGE: kindred status --db PATH [--owner OWNER] [--config PATH] [--json]

        Prints a short summary (one owner with --owner, else the whole database); --json prints the
        index/status result instead. Exit status: 0 ok, 1 failure (no database at PATH), 2 usage error,
        4 the owner has no records (stderr names the owners there are).
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner"]), flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let service = try ServiceFactory.open(args, missing: .refuse)
        defer { service.close() }
        var params: JSONObject = [:]
        if let o = args.value("owner") { params["owner"] = .string(o) }
        let status = try ServiceCall.call(service, "index/status", params, options: ["owner": "--owner"])
        if args.has("json") { Output.json(status) } else { for line in summary(status) { Output.out(line) } }
        if let owner = args.value("owner"), status["records"]?.intValue == 0 {
            Output.err("kindred status: \(try Inventory.noRecords(service, owner: owner))")
            return ExitCode.notFound
        }
        return ExitCode.ok
    }

    /// The human summary of an `index/status` result.
    static func summary(_ s: JSONValue) -> [String] {
        func n(_ k: String, in v: JSONValue? = nil) -> Int64 { (v ?? s)[k]?.intValue ?? 0 }
        let whose = s["owner"]?.stringValue.map { "owner \($0)" } ?? "all owners"
        var out = ["\(whose): \(n("records")) records, \(n("searchable")) searchable"]
        let embedder = s["embedder"]?["available"] == true
            ? "model \(s["model"]?.stringValue ?? "?") (\(n("dimension") > 0 ? "\(n("dimension"))-d" : "size fixed by the provider's first answer"))"
            : "no model (\(s["embedder"]?["problem"]?.stringValue ?? "unavailable")): keyword search only"
        out.append("search index: \(n("indexed")) of \(n("searchable")) searchable records indexed, \(n("pendingEmbeddings")) waiting for the embedder; \(embedder)")
        if n("vectorsOtherVersions") > 0 {
            out.append("  \(n("vectorsOtherVersions")) vectors from another model or dimension (kindred serve's index/rebuild re-embeds them)")
        }
        if let p = s["patterns"] {
            out.append("patterns: \(n("activeGroups", in: p)) active groups of \(n("groups", in: p)), \(n("occurrences", in: p)) occurrences"
                + (n("occurrencesWaitingForVectors", in: p) > 0 ? " (\(n("occurrencesWaitingForVectors", in: p)) waiting for vectors)" : ""))
        }
        out.append("database schema version \(n("schemaVersion")), index version \(s["indexVersion"]?.stringValue ?? "?")")
        return out
    }
}
