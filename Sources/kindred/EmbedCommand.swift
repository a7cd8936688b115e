import Foundation
import Embedding
import KindredCore
import Service
import LinearAlgebra

enum EmbedCommand {
    static let help = """
        kindred embed — print embeddings, one JSON array of floats per line, in input order

        USAGE: kindred embed [--config PATH] [--set key=value]... TEXT...
               kindred embed [--batch N] --file FILE     (one text per line)

        Uses the configured local model (default all-MiniLM-L6-v2, 384 dimensions, unit length).
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
            for v in try embedder.embed(Array(texts[start..<end]), isCancelled: { false }) { Output.json(.from(v)) }
            start = end
        }
        return ExitCode.ok
    }
}

enum EmbedBenchCommand {
    static let help = """
        kindred embed-bench — embedding throughput on a file of texts (used by bench/embedder)

        USAGE: kindred embed-bench --texts FILE [--batch N] [--threads T] [--model DIR]

        Prints {"sentences", "seconds", "sentences_per_second", "peak_rss_kb"} as JSON.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["texts", "batch", "threads", "model"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        let file = try args.required("texts")
        let dir = args.value("model") ?? ModelLocation.defaultDirectory()
        let r = try EmbedBenchmark.run(modelDirectory: dir, textsFile: file, batch: try args.int("batch") ?? 32, threads: try args.int("threads") ?? 1)
        Output.json([
            "sentences": .from(r.sentences), "seconds": .double(r.seconds),
            "sentences_per_second": .double(Double(r.sentences) / max(r.seconds, 1e-9)), "peak_rss_kb": .from(PeakMemory.kilobytes()),
        ])
        return ExitCode.ok
    }
}

/// Peak resident set size of this process (VmHWM), in kB.
enum PeakMemory {
    static func kilobytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in s.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "0") ?? 0
        }
        return 0
    }
}

enum BenchSearchCommand {
    static let help = """
        kindred bench-search — exact top-k search timings on raw float32 vectors (used by bench/search)

        USAGE: kindred bench-search --base FILE.f32 --queries FILE.f32 --db PATH [--dim 384] [--k 10]
                                    [--kernel half|simd|gemv] [--batch-threshold N] [--threads T]

        FILE.f32 holds little-endian float32 rows. Ingests the base vectors into a fresh SQLite file,
        reopens it, times each query alone and the whole set as one batch, and prints JSON with the
        timings, peak memory and the top-k row numbers of every query.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["base", "queries", "db", "dim", "k", "kernel", "batch-threshold", "threads"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        BLAS.setThreads(try args.int("threads") ?? 1)
        var result = try SearchBenchmark.run(SearchBenchmark.Options(
            base: try args.required("base"), queries: try args.required("queries"), dimension: try args.int("dim") ?? 384,
            k: try args.int("k") ?? 10, database: try args.required("db"), kernel: args.value("kernel") ?? "half",
            batchThreshold: try args.int("batch-threshold") ?? 8))
        if case .object(var o) = result {
            o["peak_rss_kb"] = .from(PeakMemory.kilobytes())
            result = .object(o)
        }
        Output.json(result)
        return ExitCode.ok
    }
}
