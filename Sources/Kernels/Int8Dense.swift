internal import CKernels

/// Dense products y += x · Wᵀ with W [n × k] quantised per output channel (`gemm_i8.c`). Each row of
/// x is split: its outliers (|x[p]| > spread · rms of the row) stay float32 and are multiplied by the weights
/// kept as half floats (Wᵀ, k × n); the rest is quantised on its own over its range, x ≈ scale · (u − z)
/// with u unsigned bytes and z the row's zero point, and summed exactly in int32. AVX-512 VNNI where the
/// CPU has it, else the plain C reference; both give the same bits.
public enum Int8Dense {
    /// k rounded up to a multiple of 4: the row length of codes and quantised rows.
    public static func paddedInputs(_ k: Int) -> Int { kindred_gemm_i8_padded(k) }
    /// n rounded up to a multiple of 16: the channels of packed weights and their scale and sum arrays.
    public static func paddedChannels(_ n: Int) -> Int { kindred_gemm_i8_padded_channels(n) }
    /// Bytes of the codes of m quantised rows of k values (m rounded up to a multiple of 8, times paddedInputs(k)).
    public static func rowsSize(_ m: Int, inputs k: Int) -> Int { kindred_gemm_i8_rows_size(m, k) }
    /// Byte of input p of row i in the codes of quantised rows of k values: blocks of 8 rows; in a block,
    /// step p / 4 holds 32 bytes, row (i % 8)'s four codes at byte 4 · (i % 8).
    public static func rowOffset(row i: Int, input p: Int, inputs k: Int) -> Int { kindred_gemm_i8_row_offset(i, kindred_gemm_i8_padded(k), p) }
    /// Most outliers a row of k values can have: the stride of the outlier arrays.
    public static func outlierCapacity(_ k: Int) -> Int { kindred_gemm_i8_outlier_capacity(k) }

    /// Quantises W [n × k] (row-major) per row into `codes` (paddedChannels(n) · paddedInputs(k) bytes,
    /// in groups of 16 channels: step p / 4 of a group holds 64 bytes, channel l's four codes at byte
    /// 4 · l); sets scale[j] and sums[j] = Σ codes (both paddedChannels(n) long, zero past n).
    public static func pack(_ w: UnsafePointer<Float>, outputs n: Int, inputs k: Int, codes: UnsafeMutablePointer<Int8>,
                            scale: UnsafeMutablePointer<Float>, sums: UnsafeMutablePointer<Int32>) {
        kindred_gemm_i8_pack(w, n, k, codes, scale, sums)
    }

    /// Quantised rows: for row i, codes at `rowOffset(row: i, …)` (`rowsSize` bytes), scale[i], zero point
    /// zero[i], and its outlierCounts[i] outliers (ascending columns, values) at outliers / outlierValues +
    /// i · outlierCapacity(k).
    public struct Rows {
        public let codes: UnsafeMutablePointer<UInt8>
        public let scale: UnsafeMutablePointer<Float>
        public let zero: UnsafeMutablePointer<Int32>
        public let outliers: UnsafeMutablePointer<Int32>
        public let outlierValues: UnsafeMutablePointer<Float>
        public let outlierCounts: UnsafeMutablePointer<Int32>

        public init(codes: UnsafeMutablePointer<UInt8>, scale: UnsafeMutablePointer<Float>, zero: UnsafeMutablePointer<Int32>,
                    outliers: UnsafeMutablePointer<Int32>, outlierValues: UnsafeMutablePointer<Float>, outlierCounts: UnsafeMutablePointer<Int32>) {
            self.codes = codes
            self.scale = scale
            self.zero = zero
            self.outliers = outliers
            self.outlierValues = outlierValues
            self.outlierCounts = outlierCounts
        }
    }

    /// Splits m rows of k values (row stride ldx), the values past `spread` (≥ 3) times a row's rms taken
    /// out as outliers, and quantises the rest into `rows`.
    public static func quantize(_ x: UnsafePointer<Float>, stride ldx: Int, rows m: Int, inputs k: Int, spread: Float, into r: Rows,
                                path: KernelPath = .dispatched) {
        precondition(spread >= 3, "the outlier arrays hold k / 9 + 1 values")
        switch path {
        case .dispatched:
            kindred_gemm_i8_quantize_rows(x, ldx, m, k, spread, r.codes, r.scale, r.zero, r.outliers, r.outlierValues, r.outlierCounts)
        case .reference:
            kindred_gemm_i8_quantize_rows_reference(x, ldx, m, k, spread, r.codes, r.scale, r.zero, r.outliers, r.outlierValues, r.outlierCounts)
        }
    }

    /// W [n × k] (row-major) transposed into `transposed` [k × n] as IEEE half floats (round to nearest
    /// even): the weights of the rows' outliers. F16C's conversion where the CPU has AVX-512 VNNI, else the
    /// plain C reference; both give the same bits.
    public static func packOutlierWeights(_ w: UnsafePointer<Float>, outputs n: Int, inputs k: Int, into transposed: UnsafeMutablePointer<UInt16>,
                                          path: KernelPath = .dispatched) {
        switch path {
        case .dispatched: kindred_gemm_i8_pack_outlier_weights(w, n, k, transposed)
        case .reference: kindred_gemm_i8_pack_outlier_weights_reference(w, n, k, transposed)
        }
    }

    /// Packed weights (`pack`) of the first n channels, with their outlier weights (`packOutlierWeights`)
    /// at `transposed` (row stride `stride`).
    public struct Weights {
        public let codes: UnsafePointer<Int8>, scale: UnsafePointer<Float>, sums: UnsafePointer<Int32>
        public let transposed: UnsafePointer<UInt16>, stride: Int

        public init(codes: UnsafePointer<Int8>, scale: UnsafePointer<Float>, sums: UnsafePointer<Int32>, transposed: UnsafePointer<UInt16>, stride: Int) {
            self.codes = codes
            self.scale = scale
            self.sums = sums
            self.transposed = transposed
            self.stride = stride
        }
    }

    /// y[i, j] += the product of quantised row i and channel j, for i < m and j < n (y's row stride ldy); with
    /// `bias` (n floats), y[i, j] = bias[j] + the product instead, or (residual[i, j] + bias[j]) + the product
    /// with `residual` too (row stride `residualStride`), y's contents unread.
    public static func multiply(_ r: Rows, rows m: Int, _ w: Weights, outputs n: Int, inputs k: Int, bias: UnsafePointer<Float>? = nil,
                                residual: UnsafePointer<Float>? = nil, residualStride: Int = 0, into y: UnsafeMutablePointer<Float>,
                                stride ldy: Int, path: KernelPath = .dispatched) {
        precondition(residual == nil || bias != nil, "a residual start comes with its bias")
        var rows = kindred_i8_rows(codes: r.codes, scale: r.scale, zero: r.zero, outliers: r.outliers, outlier_values: r.outlierValues, outlier_count: r.outlierCounts)
        switch path {
        case .dispatched: kindred_gemm_i8(&rows, m, w.codes, w.scale, w.sums, w.transposed, w.stride, n, k, bias, residual, residualStride, y, ldy)
        case .reference:
            kindred_gemm_i8_reference(&rows, m, w.codes, w.scale, w.sums, w.transposed, w.stride, n, k, bias, residual, residualStride, y, ldy)
        }
    }

    /// Whether `multiply` and `quantize` use AVX-512 VNNI.
    public static var vectorized: Bool { kindred_gemm_i8_vectorized() != 0 }
}
