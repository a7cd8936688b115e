internal import CKernels

/// Float32 products on the calling thread (`kernels.c`, `matmul.c`): AVX2 + FMA where the CPU has
/// them (chosen at run time), portable C otherwise.
public enum FloatKernels {
    /// out[i] = q · rows[i] for `count` rows of `dimension` floats (row-major).
    public static func dots(_ q: UnsafePointer<Float>, rows: UnsafePointer<Float>, count: Int, dimension: Int, into out: UnsafeMutablePointer<Float>) {
        kindred_dots_f32(q, rows, count, dimension, out)
    }

    /// q · r for two vectors of `dimension` floats, summed as `dots` sums them.
    public static func dot(_ q: UnsafePointer<Float>, _ r: UnsafePointer<Float>, dimension: Int) -> Float {
        var one: Float = 0
        kindred_dots_f32(q, r, 1, dimension, &one)
        return one
    }

    /// y[i, j] = (accumulate ? y[i, j] : 0) + alpha · Σₚ x[i, p] · w[j, p] for i < m, j < n: x times the
    /// transpose of w, each row-major with its own row stride. Every output is summed the same way
    /// whatever block of rows or columns computes it.
    public static func multiplyTransposed(
        _ x: UnsafePointer<Float>, stride ldx: Int, _ w: UnsafePointer<Float>, stride ldw: Int,
        into y: UnsafeMutablePointer<Float>, stride ldy: Int, m: Int, n: Int, k: Int, alpha: Float = 1, accumulate: Bool
    ) {
        kindred_gemm_nt(x, ldx, w, ldw, y, ldy, m, n, k, alpha, accumulate ? 1 : 0)
    }

    /// y[i, j] = alpha · Σₚ a[i, p] · b[p, j] for i < m, j < n (row-major, own row strides).
    public static func multiply(
        _ a: UnsafePointer<Float>, stride lda: Int, _ b: UnsafePointer<Float>, stride ldb: Int,
        into y: UnsafeMutablePointer<Float>, stride ldy: Int, m: Int, n: Int, k: Int, alpha: Float = 1
    ) {
        kindred_gemm_nn(a, lda, b, ldb, y, ldy, m, n, k, alpha)
    }

    /// Floats of scratch `attention` needs for `rows` rows of `heads` heads of `width` values.
    public static func attentionScratch(rows t: Int, heads: Int, width d: Int) -> Int { kindred_attention_scratch(t, heads, d) }

    /// Self-attention of one sequence of `rows` rows, row r being [Q | K | V] (`heads` · `width` floats each) at
    /// qkv + r · `stride`: for each head, out[i, head's columns] = Σⱼ softmax(scale · qᵢ · kⱼ)ⱼ · vⱼ (out's row stride
    /// `outStride`); `scratch` holds `attentionScratch` floats.
    public static func attention(
        _ qkv: UnsafePointer<Float>, stride ld: Int, rows t: Int, heads: Int, width d: Int, scale: Float,
        into out: UnsafeMutablePointer<Float>, stride ldo: Int, scratch: UnsafeMutablePointer<Float>
    ) {
        kindred_attention(qkv, ld, t, heads, d, scale, out, ldo, scratch)
    }

    /// Whether the vector instruction path is in use (for reports).
    public static var vectorized: Bool { kindred_kernels_vectorized() != 0 }
}
