import Embedding
import KindredCLI
import KindredCore

/// `kindred-bench embedder`: the Kindred side of bench/embedder.
enum EmbedderCommand {
    static let help = """
        kindred-bench embedder — embedding throughput on a file of texts (used by bench/embedder)

        USAGE: kindred-bench embedder --texts FILE [--batch N] [--threads T] [--model DIR] [--precision float32|int8]

        --threads T is both the BLAS thread count and the threads that share the matrix products of an
        input of under 64 tokens (default 1). --precision is the arithmetic of the dense layers (default float32). Prints {"sentences", "seconds", "processor_seconds",
        "sentences_per_second", "peak_rss_kb"} as JSON (processor_seconds: user + system time of every
        thread while embedding, busy-waiting included).
        """

    /// `--precision float32|int8` (default float32).
    static func precision(_ args: Arguments) throws -> Precision {
        let text = args.value("precision") ?? "float32"
        guard let precision = Precision(rawValue: text) else {
            throw Arguments.UsageError(description: "--precision: expected float32 or int8, got '\(text)'")
        }
        return precision
    }

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["texts", "batch", "threads", "model", "precision"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let file = try args.required("texts")
        let dir = args.value("model") ?? ModelLocation.defaultDirectory()
        let r = try EmbedBenchmark.run(modelDirectory: dir, textsFile: file, batch: try args.int("batch") ?? 32, threads: try args.int("threads") ?? 1,
                                       precision: precision(args))
        Output.json([
            "sentences": .from(r.sentences), "seconds": .double(r.seconds), "processor_seconds": .double(r.processorSeconds),
            "sentences_per_second": .double(Double(r.sentences) / max(r.seconds, 1e-9)), "peak_rss_kb": .from(PeakMemory.kilobytes()),
        ])
        return ExitCode.ok
    }
}
