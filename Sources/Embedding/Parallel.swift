import Dispatch

/// Spreads the forward pass's non-GEMM work (attention heads, GELU, LayerNorm) over the BLAS
/// thread count, so a second core helps the whole layer, not only the dense GEMMs.
enum Parallel {
    /// Calls `body(worker, workers)` on `workers` threads at once (inline when there is one).
    /// The workers share raw buffers: each writes only its own rows, heads or scores buffer.
    static func run(workers: Int, _ body: (_ worker: Int, _ workers: Int) -> Void) {
        if workers <= 1 { body(0, 1); return }
        withoutActuallyEscaping(body) { body in
            let shared = Shared(body: body)
            DispatchQueue.concurrentPerform(iterations: workers) { shared.body($0, workers) }
        }
    }

    /// The closure handed to the worker threads; `run` returns only after all of them finished.
    private struct Shared: @unchecked Sendable {
        let body: (Int, Int) -> Void
    }

    /// `body(range)` over `count` items cut into one contiguous range per worker.
    static func chunks(_ count: Int, workers: Int, _ body: (Range<Int>) -> Void) {
        let w = max(1, min(workers, count))
        run(workers: w) { i, w in body((count * i / w)..<(count * (i + 1) / w)) }
    }
}
