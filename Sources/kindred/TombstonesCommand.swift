import Foundation
import KindredCLI
import KindredCore
import Service

enum TombstonesCommand {
    static let help = """
        kindred tombstones — the tombstones deleted records leave

        USAGE: kindred tombstones purge --db PATH --before DATE [--owner OWNER] [--json]

        A deleted record leaves a tombstone (owner, id, revision, deletion time), so that an upsert
        of the deleted revision or an older one is answered "stale" instead of bringing the record
        back. `purge` removes the tombstones of records deleted before DATE (YYYY-MM-DD, midnight
        UTC, or an ISO-8601 timestamp), of one owner or of all; after that an old revision of those
        ids is a new record again. Exit status: 0 done, 1 failure, 2 usage error.

        OPTIONS:
          --db PATH          SQLite file (must exist)
          --before DATE      purge tombstones of records deleted before this time
          --owner OWNER      only this owner's tombstones (default: every owner's)
          --json             print the records/purgeTombstones result as JSON
          --config PATH      configuration file
          --set key=value    override one configuration key
          --help             show this help
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["before", "owner"]), flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        guard args.positionals == ["purge"] else {
            throw Arguments.UsageError(description: args.positionals.isEmpty ? "a subcommand is required (purge)" : "unknown subcommand '\(args.positionals.joined(separator: " "))' (purge)")
        }
        var params: JSONObject = ["before": .string(try args.required("before"))]
        if let o = args.value("owner") { params["owner"] = .string(o) }
        let service = try ServiceFactory.open(args, missing: .refuse)
        defer { service.close() }
        let result = try ServiceCall.call(service, "records/purgeTombstones", params, options: ["before": "--before", "owner": "--owner"])
        if args.has("json") {
            Output.json(result)
        } else {
            let n = result["purged"]?.intValue ?? 0
            Output.out("\(n) tombstone\(n == 1 ? "" : "s") purged")
        }
        return ExitCode.ok
    }
}
