import Foundation
import KindredCore
import LinearAlgebra
import Service
import VectorIndex

/// The Kindred side of `bench/search`: ingest raw float32 vectors into a real store, reopen it, and
/// time exact top-k search single and batched. Used by `kindred-bench search`.
enum SearchBenchmark {
    struct Options: Sendable {
        var base: String
        var queries: String
        var dimension: Int
        var k: Int
        var database: String
        var kernel: String
        var batchThreshold: Int
        init(base: String, queries: String, dimension: Int, k: Int, database: String, kernel: String, batchThreshold: Int) {
            self.base = base
            self.queries = queries
            self.dimension = dimension
            self.k = k
            self.database = database
            self.kernel = kernel
            self.batchThreshold = batchThreshold
        }
    }

    static func readFloats(_ path: String, dimension: Int) throws -> [[Float]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        let n = data.count / (4 * dimension)
        return data.withUnsafeBytes { raw in
            (0..<n).map { i in (0..<dimension).map { j in raw.loadUnaligned(fromByteOffset: (i * dimension + j) * 4, as: Float.self) } }
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// Runs the benchmark and returns its measurements (and the top-k row numbers for recall).
    static func run(_ o: Options) throws -> JSONValue {
        let clock = ContinuousClock()
        let queries = try readFloats(o.queries, dimension: o.dimension)
        var config = Config()
        try config.set("index.dimension", .int(Int64(o.dimension)))
        try config.set("search.sharedScanQueries", .int(Int64(o.batchThreshold)))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: o.database + suffix) }

        // Ingest: the real write path (SQLite transaction per batch + in-memory index).
        let ingestStart = clock.now
        let ingestCPUStart = ProcessorTime.seconds()
        var count = 0
        do {
            // Stream the mapped file in batches: no copy of the whole base set beside the index.
            let data = try Data(contentsOf: URL(fileURLWithPath: o.base), options: .alwaysMapped)
            count = data.count / (4 * o.dimension)
            let service = try KindredService(config: config, databasePath: o.database, embedder: nil, embedderProblem: "benchmark")
            let batch = 10_000
            var i = 0
            while i < count {
                let end = min(count, i + batch)
                let d = o.dimension
                let records = data.withUnsafeBytes { raw in
                    (i..<end).map { r in
                        Record(id: "v\(r)", revision: 1, text: "", vector: [Float](unsafeUninitializedCapacity: d) { buf, n in
                            UnsafeMutableRawPointer(buf.baseAddress!).copyMemory(from: raw.baseAddress! + r * d * 4, byteCount: d * 4)
                            n = d
                        })
                    }
                }
                _ = try service.upsert(owner: "bench", records: records)
                i = end
            }
            service.close()
        }
        let ingest = seconds(clock.now - ingestStart)
        let ingestCPU = ProcessorTime.seconds() - ingestCPUStart

        // Open: rebuild the in-memory matrix from SQLite.
        let openStart = clock.now
        let service = try KindredService(config: config, databasePath: o.database, embedder: nil, embedderProblem: "benchmark")
        let open = seconds(clock.now - openStart)
        defer { service.close() }
        // One scan kernel (int8 codes, float32 re-scoring); the bench's thread count also bounds the scan's.
        let kernel = "int8"

        // Single queries, one at a time.
        var latencies: [Double] = []
        var topk: [JSONValue] = []
        service.withVectorIndex { index in
            index.scanThreads = max(1, BLAS.threads)
            _ = index.search(owner: "bench", query: queries[0], k: o.k)  // warm-up
            for q in queries {
                let t = clock.now
                let hits = index.search(owner: "bench", query: q, k: o.k)
                latencies.append(seconds(clock.now - t) * 1000)
                topk.append(.array(hits.map { .int($0.rowid - 1) }))
            }
        }
        // The whole query set as one batch.
        var batchSeconds = 0.0
        var batchAgrees = true
        service.withVectorIndex { index in
            let t = clock.now
            let results = index.searchBatch(owner: "bench", queries: queries, k: o.k)
            batchSeconds = seconds(clock.now - t)
            for (r, single) in zip(results, topk) where JSONValue.array(r.map { .int($0.rowid - 1) }) != single { batchAgrees = false }
        }
        // Where one sgemm per row block beats per-query scans: per-query cost for small blocks.
        var sweep: [JSONValue] = []
        service.withVectorIndex { index in
            let saved = index.sharedScanQueries
            for nq in [1, 2, 4, 8, 16, 32, 64] where nq <= queries.count {
                let block = Array(queries.prefix(nq))
                var perQuery: [String: Double] = [:]
                for (name, threshold) in [("gemm", 1), ("scan", Int.max)] {
                    index.sharedScanQueries = threshold
                    let reps = max(1, 64 / nq)
                    let t = clock.now
                    for _ in 0..<reps { _ = index.searchBatch(owner: "bench", queries: block, k: o.k) }
                    perQuery[name] = seconds(clock.now - t) * 1000 / Double(reps * nq)
                }
                sweep.append(["queries": .from(nq), "gemm_ms_per_query": .double(perQuery["gemm"]!), "scan_ms_per_query": .double(perQuery["scan"]!)])
            }
            index.sharedScanQueries = saved
        }
        let sorted = latencies.sorted()
        func pct(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))] }
        return [
            "n": .from(count), "queries": .from(queries.count), "k": .from(o.k), "kernel": .string(kernel),
            "blas_threads": .from(BLAS.threads),
            "ingest_s": .double(ingest), "ingest_cpu_s": .double(ingestCPU), "open_s": .double(open),
            "single_ms": ["median": .double(pct(0.5)), "p95": .double(pct(0.95)), "mean": .double(latencies.reduce(0, +) / Double(latencies.count))],
            "batch_s": .double(batchSeconds), "batch_matches_single": .bool(batchAgrees),
            "batch_sweep": .array(sweep),
            "topk": .array(topk),
        ]
    }
}
