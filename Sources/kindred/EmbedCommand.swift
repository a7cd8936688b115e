import Foundation
import KindredCLI
import KindredCore
import Service

enum EmbedCommand {
    static let help = """
        kindred embed — print embeddings, one JSON array of floats per line, in input order

        USAGE: kindred embed [--config PATH] [--set key=value]... TEXT...
               kindred embed [--batch N] --file FILE     (one text per line; FILE - is standard input)

        With --file, texts given as arguments come first, then the file's lines; a file with no lines
        prints nothing.

        Uses the configured local model (default all-MiniLM-L6-v2, 384 dimensions, unit length);
        texts are embedded as records are (embedder.documentPrefix / documentInputType).
        Exit status: 0 ok, 1 model missing or failure, 2 usage error.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["config", "set", "file", "batch"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        var texts = args.positionals
        let file = args.value("file")
        if let file {
            let content: String
            switch readText(file) {
            case .success(let text): content = text
            case .failure(let problem):
                Output.err("kindred embed: \(problem.description)")
                return ExitCode.failure
            }
            var lines = content.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if lines.last == "" { lines.removeLast() }
            texts += lines
        }
        guard file != nil || !texts.isEmpty else { throw Arguments.UsageError(description: "give at least one TEXT or --file") }
        let config = try ServiceFactory.config(args)
        if texts.isEmpty { return ExitCode.ok }
        EmbedderSetup.configureThreads(config)
        let (embedder, problem) = EmbedderSetup.make(config)
        guard let embedder else {
            Output.err("kindred embed: \(problem ?? "no embedder")")
            return ExitCode.failure
        }
        let batch = try args.int("batch") ?? Settings(config).embedder.batchSize
        var start = 0
        while start < texts.count {
            let end = min(texts.count, start + max(1, batch))
            for v in try embedder.embed(Array(texts[start..<end]), as: .document, isCancelled: { false }) { Output.json(.from(v)) }
            start = end
        }
        return ExitCode.ok
    }

    struct ReadProblem: Error, CustomStringConvertible { let description: String }

    /// The whole of `path`, or of standard input when `path` is `-`, as UTF-8 text.
    static func readText(_ path: String) -> Result<String, ReadProblem> {
        let name = path == "-" ? "standard input" : path
        let data: Data
        if path == "-" {
            do {
                data = try FileHandle.standardInput.readToEnd() ?? Data()
            } catch {
                return .failure(ReadProblem(description: "cannot read standard input: \(error.localizedDescription)"))
            }
        } else {
            guard let d = FileManager.default.contents(atPath: path) else { return .failure(ReadProblem(description: "cannot read \(path)")) }
            data = d
        }
        guard let text = String(data: data, encoding: .utf8) else { return .failure(ReadProblem(description: "\(name) is not UTF-8 text")) }
        return .success(text)
    }
}
