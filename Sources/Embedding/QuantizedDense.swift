import CKernels

/// Arithmetic of the encoder's dense layers (QKV, attention output, feed-forward in and out).
/// Attention, softmax, LayerNorm, GELU and pooling are float32 in both.
public enum Precision: String, Sendable, CaseIterable {
    /// float32 products (BLAS for long inputs).
    case float32
    /// Weights quantised per output channel at load, activations per token before each product, exact
    /// int32 sums rescaled to float32 (`kindred_gemm_i8`), bias added in float32.
    case int8
}

/// Storage of one type owned by the encoder (quantised codes and their side arrays); freed with the last reference.
final class Storage<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    init(count: Int) { pointer = .allocate(capacity: max(count, 1)) }
    deinit { pointer.deallocate() }
}

/// One linear layer's weights `[outputs × inputs]` quantised per output channel (see `kindred_gemm_i8_pack`),
/// with the float weights transposed (`[inputs × outputs]`) for the rows' outliers.
struct QuantizedDense: @unchecked Sendable {
    let outputs: Int, inputs: Int
    let codes: Storage<Int8>
    let scale: Storage<Float>
    let sums: Storage<Int32>
    let transposed: Storage<Float>

    init(_ w: UnsafePointer<Float>, outputs: Int, inputs: Int) {
        self.outputs = outputs
        self.inputs = inputs
        let channels = kindred_gemm_i8_padded_channels(outputs)
        codes = Storage(count: channels * kindred_gemm_i8_padded(inputs))
        scale = Storage(count: channels)
        sums = Storage(count: channels)
        kindred_gemm_i8_pack(w, outputs, inputs, codes.pointer, scale.pointer, sums.pointer)
        transposed = Storage(count: inputs * outputs)
        for j in 0..<outputs {
            for p in 0..<inputs { transposed.pointer[p * outputs + j] = w[j * inputs + p] }
        }
    }

    /// y[rows × outputs] += x · Wᵀ for the channels `columns` (a range starting at a multiple of 16), from
    /// rows `first ..< first + count` of `q`, quantised from this layer's input.
    func apply(_ q: QuantizedRows, rows: Range<Int>, into y: UnsafeMutablePointer<Float>, columns: Range<Int>) {
        var r = q.rows(rows.lowerBound, inputs: inputs)
        let first = columns.lowerBound
        kindred_gemm_i8(&r, rows.count, codes.pointer + first * kindred_gemm_i8_padded(inputs), scale.pointer + first, sums.pointer + first,
                        transposed.pointer + first, outputs, columns.count, inputs, y + rows.lowerBound * outputs + first, outputs)
    }

    /// Quantises rows `rows` of x (`inputs` floats each) into the same rows of `q`.
    func quantize(_ x: UnsafePointer<Float>, rows: Range<Int>, into q: QuantizedRows) {
        let r = q.rows(rows.lowerBound, inputs: inputs)
        kindred_gemm_i8_quantize_rows(x + rows.lowerBound * inputs, inputs, rows.count, inputs, UnsafeMutablePointer(mutating: r.codes),
                                      UnsafeMutablePointer(mutating: r.scale), UnsafeMutablePointer(mutating: r.outliers),
                                      UnsafeMutablePointer(mutating: r.outlier_values), UnsafeMutablePointer(mutating: r.outlier_count))
    }
}

/// A dense layer's input rows quantised (`kindred_gemm_i8_quantize_rows`), for inputs of up to
/// `maxInputs` values; each dense layer of a pass overwrites them.
final class QuantizedRows: @unchecked Sendable {
    let codes: Storage<UInt8>, scale: Storage<Float>, outliers: Storage<Int32>, values: Storage<Float>, counts: Storage<Int32>

    init(rows: Int, maxInputs: Int) {
        let cap = kindred_gemm_i8_outlier_capacity(maxInputs)
        codes = Storage(count: rows * kindred_gemm_i8_padded(maxInputs))
        scale = Storage(count: rows)
        outliers = Storage(count: rows * cap)
        values = Storage(count: rows * cap)
        counts = Storage(count: rows)
    }

    /// Row `first` onwards, laid out for inputs of `inputs` values.
    func rows(_ first: Int, inputs: Int) -> kindred_i8_rows {
        let cap = kindred_gemm_i8_outlier_capacity(inputs)
        return kindred_i8_rows(codes: codes.pointer + first * kindred_gemm_i8_padded(inputs), scale: scale.pointer + first,
                               outliers: outliers.pointer + first * cap, outlier_values: values.pointer + first * cap,
                               outlier_count: counts.pointer + first)
    }
}

/// The quantised dense layers of one encoder layer.
struct QuantizedLayer: Sendable {
    let qkv: QuantizedDense
    let attentionOut: QuantizedDense
    let intermediate: QuantizedDense
    let output: QuantizedDense

    init(_ l: BertLayerWeights, hidden h: Int, intermediate i: Int) {
        qkv = QuantizedDense(l.qkvWeight, outputs: 3 * h, inputs: h)
        attentionOut = QuantizedDense(l.attentionOutWeight, outputs: h, inputs: h)
        intermediate = QuantizedDense(l.intermediateWeight, outputs: i, inputs: h)
        output = QuantizedDense(l.outputWeight, outputs: h, inputs: i)
    }
}
