import Foundation
import KindredCore
import Service

enum StatusCommand {
    static let help = """
        kindred status — index counts, model and index version

        USAGE: kindred status --db PATH [--owner OWNER] [--config PATH]

        Prints the index/status result as JSON.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner"]), flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let service = try ServiceFactory.open(args)
        defer { service.close() }
        var params: JSONObject = [:]
        if let o = args.value("owner") { params["owner"] = .string(o) }
        Output.json(try service.call("index/status", .object(params)))
        return ExitCode.ok
    }
}
