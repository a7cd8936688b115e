import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum IngestCommand {
    static let help = """
        kindred ingest — load records from a JSON Lines file

        USAGE: kindred ingest --db PATH --owner OWNER [--json] FILE.jsonl

        Each line is one record: {"id", "revision", "text", "kind"?, "date"?, "tags"?, "metadata"?,
        "permissions"?, "vector"?}. Valid lines are written in batches (one transaction each); a bad
        line is reported on stderr with its line number and skipped. A progress bar shows on stderr.
        Exit status: 0 all lines loaded, 3 some lines refused, 1 failure, 2 usage error.

        OPTIONS:
          --db PATH          SQLite file (created if missing)
          --owner OWNER      owner of every record in the file
          --config PATH      configuration file
          --set key=value    override one configuration key
          --json             print the summary as JSON
          --help             show this help
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ServiceFactory.commonOptions.union(["owner"]), flags: ["help", "json"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let owner = try args.required("owner")
        guard args.positionals.count == 1 else { throw Arguments.UsageError(description: "expected exactly one FILE.jsonl") }
        let file = args.positionals[0]
        guard let data = FileManager.default.contents(atPath: file) else {
            Output.err("kindred ingest: cannot read \(file)")
            return ExitCode.failure
        }
        let service = try ServiceFactory.open(args)
        defer { service.close() }
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        // A final newline ends the last line; it does not start another one.
        if lines.last?.isEmpty == true { lines.removeLast() }
        let batchSize = max(1, service.settings.ingest.batchSize)
        let bar = ProgressBar(title: "ingest", total: lines.count)
        var batch: [JSONValue] = []
        var batchIDs = Set<String>()
        var counts: [String: Int] = [:]
        var refused = 0

        func flush() throws {
            guard !batch.isEmpty else { return }
            let result = try service.call("records/upsert", ["owner": .string(owner), "records": .array(batch)])
            for r in result["results"]?.arrayValue ?? [] { counts[r["status"]?.stringValue ?? "?", default: 0] += 1 }
            batch.removeAll(keepingCapacity: true)
            batchIDs.removeAll(keepingCapacity: true)
        }

        for (n, line) in lines.enumerated() {
            bar.update(n)
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let value: JSONValue
            do { value = try JSONParser.parse(Array(line)) } catch {
                Output.err("\(file):\(n + 1): not valid JSON: \(error)")
                refused += 1
                continue
            }
            if let problem = service.validateRecord(value) {
                let field = problem.data?["field"]?.stringValue.map { $0.replacingOccurrences(of: "records[0]", with: "record") } ?? "record"
                Output.err("\(file):\(n + 1): \(field): \(problem.data?["reason"]?.stringValue ?? problem.message)")
                refused += 1
                continue
            }
            let id = value["id"]?.stringValue ?? ""
            if batchIDs.contains(id) { try flush() }
            batch.append(value)
            batchIDs.insert(id)
            if batch.count >= batchSize { try flush() }
        }
        try flush()
        bar.finish()
        let embedded = try EmbeddingRunner.embedPending(service, owner: owner)
        let summary: JSONValue = [
            "file": .string(file), "owner": .string(owner),
            "created": .from(counts["created"] ?? 0), "updated": .from(counts["updated"] ?? 0),
            "unchanged": .from(counts["unchanged"] ?? 0), "stale": .from(counts["stale"] ?? 0),
            "conflict": .from(counts["conflict"] ?? 0), "refused": .from(refused), "embedded": .from(embedded),
        ]
        if args.has("json") {
            Output.json(summary)
        } else {
            Output.out("ingested \(file): \(counts["created"] ?? 0) created, \(counts["updated"] ?? 0) updated, \(counts["unchanged"] ?? 0) unchanged, \(counts["stale"] ?? 0) stale, \(counts["conflict"] ?? 0) conflict, \(refused) refused, \(embedded) embedded")
        }
        return refused > 0 ? ExitCode.partial : ExitCode.ok
    }
}

/// Embeds records waiting for vectors, with a progress bar (no-op without an embedder).
enum EmbeddingRunner {
    static func embedPending(_ service: KindredService, owner: String?) throws -> Int {
        let bar = ProgressBar(title: "embed", total: service.pendingEmbeddingCount())
        let n = try service.embedPending(progress: { done in bar.update(done) })
        if n > 0 { bar.finish() }
        return n
    }
}
