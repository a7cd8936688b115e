import Foundation
import KindredCLI
import KindredCore
import Service

enum EmbedCommand {
    static let help = """
        kindred embed — print embeddings, one JSON array of floats per line, in input order

        USAGE: kindred embed [--config PATH] [--set key=value]... TEXT...
               kindred embed [--batch N] --file FILE     (one text per line)

        Uses the configured local model (default all-MiniLM-L6-v2, 384 dimensions, unit length);
        texts are embedded as records are (embedder.documentPrefix / documentInputType).
        Exit status: 0 ok, 1 model missing or failure, 2 usage error.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["config", "set", "file", "batch"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        var texts = args.positionals
        if let file = args.value("file") {
            guard let content = try? String(contentsOfFile: file, encoding: .utf8) else {
                Output.err("kindred embed: cannot read \(file)")
                return ExitCode.failure
            }
            texts += content.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if texts.last == "" { texts.removeLast() }
        }
        guard !texts.isEmpty else { throw Arguments.UsageError(description: "give at least one TEXT or --file") }
        let config = try ServiceFactory.config(args)
        EmbedderSetup.configureThreads(config)
        let (embedder, problem) = EmbedderSetup.make(config)
        guard let embedder else {
            Output.err("kindred embed: \(problem ?? "no embedder")")
            return ExitCode.failure
        }
        let batch = try args.int("batch") ?? config.int("embedder.batchSize")
        var start = 0
        while start < texts.count {
            let end = min(texts.count, start + max(1, batch))
            for v in try embedder.embed(Array(texts[start..<end]), as: .document, isCancelled: { false }) { Output.json(.from(v)) }
            start = end
        }
        return ExitCode.ok
    }
}
