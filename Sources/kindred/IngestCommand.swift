import Foundation
import JSONRPC
import KindredCLI
import KindredCore
import Service

enum IngestCommand {
    static let help = """
        kindred ingest — load records from a JSON Lines file

        USAGE: kindred ingest --db PATH --owner OWNER [--json] FILE.jsonl
               cat FILE.jsonl | kindred ingest --db PATH --owner OWNER -

        Each line is one record: {"id", "revision", "text", "kind"?, "date"?, "tags"?, "metadata"?,
        "permissions"?, "vector"?}; `-` reads the lines from standard input. Valid lines are written
        in batches (one transaction each); a bad line is reported on stderr with its line number and
        skipped. So is a line that was not applied: a conflict (the stored record has this revision
        with other text: give the change a higher revision) or a stale one (the stored revision is
        higher, or the record was deleted at this revision or a later one). A progress bar shows on
        stderr. Exit status: 0 every line applied (or already stored as it is), 3 some lines refused
        or not applied, 1 failure, 2 usage error.

        OPTIONS:
          --db PATH          SQLite file (created if missing; its folder must exist)
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
        guard args.positionals.count == 1 else { throw Arguments.UsageError(description: "expected exactly one FILE.jsonl (or - for standard input)") }
        let file = args.positionals[0]
        let data: Data
        if file == "-" {
            do { data = try FileHandle.standardInput.readToEnd() ?? Data() } catch {
                Output.err("kindred ingest: cannot read standard input: \(error.localizedDescription)")
                return ExitCode.failure
            }
        } else {
            guard let d = FileManager.default.contents(atPath: file) else {
                Output.err("kindred ingest: cannot read \(file)")
                return ExitCode.failure
            }
            data = d
        }
        let name = file == "-" ? "stdin" : file
        let service = try ServiceFactory.open(args, missing: .create)
        defer { service.close() }
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        // A final newline ends the last line; it does not start another one.
        if lines.last?.isEmpty == true { lines.removeLast() }
        let batchSize = max(1, service.settings.ingest.batchSize)
        let bar = ProgressBar(title: "ingest", total: lines.count)
        var batch: [JSONValue] = []
        var batchLines: [Int] = []
        var batchIDs = Set<String>()
        var counts: [String: Int] = [:]
        var refused = 0
        // What went wrong, by line number: printed in file order once the lines are read (a
        // conflict is known only when its batch is written, after later lines were checked).
        var problems: [(line: Int, text: String)] = []

        func flush() throws {
            guard !batch.isEmpty else { return }
            let result = try service.call("records/upsert", ["owner": .string(owner), "records": .array(batch)])
            for (k, r) in (result["results"]?.arrayValue ?? []).enumerated() {
                let status = r["status"]?.stringValue ?? "?"
                counts[status, default: 0] += 1
                if let why = Self.notApplied(r, sent: batch[k]) { problems.append((batchLines[k], "id \(r["id"]?.stringValue ?? "?"): \(why)")) }
            }
            batch.removeAll(keepingCapacity: true)
            batchLines.removeAll(keepingCapacity: true)
            batchIDs.removeAll(keepingCapacity: true)
        }

        for (n, line) in lines.enumerated() {
            bar.update(n)
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let value: JSONValue
            do { value = try JSONParser.parse(Array(line)) } catch {
                problems.append((n + 1, "not valid JSON: \(error)"))
                refused += 1
                continue
            }
            if let problem = service.validateRecord(value) {
                let field = problem.data?["field"]?.stringValue.map { $0.replacingOccurrences(of: "records[0]", with: "record") } ?? "record"
                problems.append((n + 1, "\(field): \(problem.data?["reason"]?.stringValue ?? problem.message)"))
                refused += 1
                continue
            }
            let id = value["id"]?.stringValue ?? ""
            if batchIDs.contains(id) { try flush() }
            batch.append(value)
            batchLines.append(n + 1)
            batchIDs.insert(id)
            if batch.count >= batchSize { try flush() }
        }
        try flush()
        bar.finish()
        for p in problems.sorted(by: { $0.line < $1.line }) { Output.err("\(name):\(p.line): \(p.text)") }
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
            Output.out("ingested \(name): \(counts["created"] ?? 0) created, \(counts["updated"] ?? 0) updated, \(counts["unchanged"] ?? 0) unchanged, \(counts["stale"] ?? 0) stale, \(counts["conflict"] ?? 0) conflict, \(refused) refused, \(embedded) embedded")
        }
        let notApplied = (counts["stale"] ?? 0) + (counts["conflict"] ?? 0)
        return refused > 0 || notApplied > 0 ? ExitCode.partial : ExitCode.ok
    }

    /// Why an upsert's answer for one line means it was not applied, or nil when it was (or was
    /// already stored as sent).
    static func notApplied(_ r: JSONValue, sent: JSONValue) -> String? {
        let stored = r["revision"]?.intValue ?? 0, sentRevision = sent["revision"]?.intValue ?? 0
        switch r["status"]?.stringValue {
        case "conflict":
            return "conflict: revision \(sentRevision) is already stored with other text; give the change a higher revision"
        case "stale" where r["deleted"] == true:
            return "stale: the record was deleted at revision \(stored); a revision above \(stored) brings it back"
        case "stale":
            return "stale: revision \(sentRevision) is older than the stored revision \(stored); nothing was changed"
        default:
            return nil
        }
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
