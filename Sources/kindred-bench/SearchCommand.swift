import KindredCLI
import KindredCore
import LinearAlgebra

/// `kindred-bench search`: the Kindred side of bench/search.
enum SearchCommand {
    static let help = """
        kindred-bench search — exact top-k search timings on raw float32 vectors (used by bench/search)

        USAGE: kindred-bench search --base FILE.f32 --queries FILE.f32 --db PATH [--dim 384] [--k 10]
                                   [--batch-threshold N] [--threads T]

        FILE.f32 holds little-endian float32 rows. Ingests the base vectors into a fresh SQLite file,
        reopens it, times each query alone and the whole set as one batch, and prints JSON with the
        timings, peak memory and the top-k row numbers of every query.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, valued: ["base", "queries", "db", "dim", "k", "batch-threshold", "threads"], flags: ["help"])
        if args.has("help") { Output.out(help); return ExitCode.ok }
        BLAS.setThreads(try args.int("threads") ?? 1)
        var result = try SearchBenchmark.run(SearchBenchmark.Options(
            base: try args.required("base"), queries: try args.required("queries"), dimension: try args.int("dim") ?? 384,
            k: try args.int("k") ?? 10, database: try args.required("db"), kernel: "int8",
            batchThreshold: try args.int("batch-threshold") ?? 8))
        if case .object(var o) = result {
            o["peak_rss_kb"] = .from(PeakMemory.kilobytes())
            result = .object(o)
        }
        Output.json(result)
        return ExitCode.ok
    }
}
