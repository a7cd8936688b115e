import Foundation
import KindredCore
import Service

enum StatusCommand {
    static let help = """
        kindred status — index counts, model and index version

        USAGE: kindred status --db PATH [--owner OWNER] [--config PATH]

        Prints the index/status result as JSON. Exit status: 0 ok, 1 failure (no database at
        PATH), 2 usage error.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner"]), flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let service = try ServiceFactory.open(args, mustExist: true)
        defer { service.close() }
        var params: JSONObject = [:]
        if let o = args.value("owner") { params["owner"] = .string(o) }
        Output.json(try ServiceCall.call(service, "index/status", params, options: ["owner": "--owner"]))
        return ExitCode.ok
    }
}
