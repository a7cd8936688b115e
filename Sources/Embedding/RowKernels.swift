/// Element-wise and row-wise kernels of the forward pass, over raw row-major storage.
/// Reductions use 8-lane SIMD accumulators so they vectorise without fast-math.
enum RowKernels {
    /// dst[r, :] = src[r, :] + bias for every row (src may equal dst).
    static func addRowBias(
        _ src: UnsafePointer<Float>, _ bias: UnsafePointer<Float>, into dst: UnsafeMutablePointer<Float>,
        rows: Int, cols: Int
    ) {
        for r in 0..<rows {
            let s = src + r * cols, d = dst + r * cols
            for c in 0..<cols { d[c] = s[c] + bias[c] }
        }
    }

    /// Every row of dst set to bias.
    static func fillRows(_ dst: UnsafeMutablePointer<Float>, with bias: UnsafePointer<Float>, rows: Int, cols: Int) {
        for r in 0..<rows { (dst + r * cols).update(from: bias, count: cols) }
    }

    /// Sum of `n` floats.
    @inline(__always)
    static func sum(_ x: UnsafePointer<Float>, _ n: Int) -> Float {
        var acc = SIMD8<Float>()
        var i = 0
        let raw = UnsafeRawPointer(x)
        while i + 8 <= n {
            acc += raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        var s = acc.sum()
        while i < n { s += x[i]; i += 1 }
        return s
    }

    /// LayerNorm of each row of `x` in place: (x − mean) / sqrt(var + eps) · γ + β, biased variance.
    static func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, eps: Float
    ) {
        let invN = 1 / Float(cols)
        for r in 0..<rows {
            let row = x + r * cols
            let mean = sum(row, cols) * invN
            var acc = SIMD8<Float>()
            var i = 0
            let raw = UnsafeRawPointer(row)
            while i + 8 <= cols {
                let d = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) - mean
                acc += d * d
                i += 8
            }
            var sq = acc.sum()
            while i < cols { let d = row[i] - mean; sq += d * d; i += 1 }
            let inv = 1 / (sq * invN + eps).squareRoot()
            for c in 0..<cols { row[c] = (row[c] - mean) * inv * gamma[c] + beta[c] }
        }
    }
}
