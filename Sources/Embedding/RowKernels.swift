/// Row fills of the forward pass (a dense layer's starting rows), over raw row-major storage.
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
}
