internal import CBLAS

/// Thin, typed wrappers over CBLAS. Row-major everywhere; pointers never escape.
public enum BLAS {
    /// Sets the number of BLAS worker threads (OpenBLAS); a no-op with other BLAS builds.
    public static func setThreads(_ n: Int) {
        kindred_blas_set_threads(Int32(max(1, n)))
    }

    public static var threads: Int { Int(kindred_blas_get_threads()) }

    /// C[m×n] = alpha · op(A) · op(B) + beta · C, row-major.
    /// `A` is m×k (or k×m when `transA`), `B` is k×n (or n×k when `transB`).
    public static func gemm(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ c: UnsafeMutablePointer<Float>,
        m: Int, n: Int, k: Int, transA: Bool = false, transB: Bool = false,
        alpha: Float = 1, beta: Float = 0, lda: Int? = nil, ldb: Int? = nil, ldc: Int? = nil
    ) {
        let lda = lda ?? (transA ? m : k)
        let ldb = ldb ?? (transB ? k : n)
        let ldc = ldc ?? n
        cblas_sgemm(
            CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans,
            Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
    }

    /// y[m] = alpha · A[m×n] · x[n] + beta · y, row-major.
    public static func gemv(
        _ a: UnsafePointer<Float>, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>,
        rows m: Int, cols n: Int, alpha: Float = 1, beta: Float = 0
    ) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(m), Int32(n), alpha, a, Int32(n), x, 1, beta, y, 1)
    }

    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count n: Int) -> Float {
        cblas_sdot(Int32(n), a, 1, b, 1)
    }
}
