import Foundation
import KindredCLI
import KindredCore
import Service

extension PatternsCommand {
    /// `patterns map` and `patterns timeline`: the picture's SVG to `--out` (or stdout).
    enum PictureCommand {
        static func run(_ sub: String, _ args: Arguments) throws -> Int32 {
            guard args.positionals.count == 1 else { throw Arguments.UsageError(description: "unexpected argument '\(args.positionals[1])'") }
            guard let owner = args.value("owner") else { throw Arguments.UsageError(description: "--owner is required") }
            var params: JSONObject = ["owner": .string(owner)]
            var flags = [("from", "from"), ("to", "to"), ("category", "category")]
            if sub == "timeline" { flags += [("compare-from", "compareFrom"), ("compare-to", "compareTo")] }
            for (flag, key) in flags { if let v = args.value(flag) { params[key] = .string(v) } }
            for flag in ["compare-from", "compare-to", "limit"] where sub == "map" && args.value(flag) != nil {
                throw Arguments.UsageError(description: "--\(flag) is an option of timeline, not of map")
            }
            if let limit = args.value("limit") {
                guard let n = Int64(limit) else { throw Arguments.UsageError(description: "--limit must be an integer, got '\(limit)'") }
                params["limit"] = .int(n)
            }
            let options = ["owner": "--owner", "from": "--from", "to": "--to", "compareFrom": "--compare-from",
                           "compareTo": "--compare-to", "category": "--category", "limit": "--limit"]
            let service = try ServiceFactory.open(args, missing: .refuse)
            defer { service.close() }
            try Inventory.requireOwner(service, owner)
            let result = try ServiceCall.call(service, sub == "map" ? "patterns/map" : "patterns/timeline", params, options: options)
            let svg = result["svg"]?.stringValue ?? ""
            if let out = args.value("out") {
                do { try Data(svg.utf8).write(to: URL(fileURLWithPath: out)) } catch {
                    throw CommandError(description: "cannot write \(out): \(error.localizedDescription)")
                }
                let count = (result[sub == "map" ? "groups" : "findings"]?.arrayValue ?? []).count
                Output.err("wrote \(out): \(count) \(sub == "map" ? "group" : "finding")\(count == 1 ? "" : "s")")
            }
            if args.has("json") {
                Output.json(result)
            } else if args.value("out") == nil {
                Output.raw(svg)
            }
            return ExitCode.ok
        }
    }
}
