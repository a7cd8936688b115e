import Kernels

/// Arithmetic of the encoder's dense layers (QKV, attention output, feed-forward in and out).
/// Attention, softmax, LayerNorm, GELU and pooling are float32 in both.
public enum Precision: String, Sendable, CaseIterable {
    /// float32 products (BLAS for long inputs).
    case float32
    /// Weights quantised per output channel at load, activations per token before each product, exact
    /// int32 sums rescaled to float32 (`Int8Dense`), bias added in float32.
    case int8

    /// Whether int8 runs on this CPU's fast path (AVX-512 VNNI). Elsewhere the portable C path
    /// gives the same vectors, slower than float32.
    public static var int8IsFast: Bool { Int8Dense.vectorized }
}

/// Storage of one type owned by the encoder (quantised codes and their side arrays); freed with the last reference.
final class Storage<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    init(count: Int) { pointer = .allocate(capacity: max(count, 1)) }
    deinit { pointer.deallocate() }
}

/// One linear layer's weights `[outputs × inputs]` quantised per output channel (see `Int8Dense.pack`),
/// with the weights transposed (`[inputs × outputs]`, half floats) for the rows' outliers.
struct QuantizedDense: @unchecked Sendable {
    let outputs: Int, inputs: Int
    /// Input values past this many times their row's rms are the row's outliers.
    let spread: Float
    let codes: Storage<Int8>
    let scale: Storage<Float>
    let sums: Storage<Int32>
    let transposed: Storage<UInt16>

    init(_ w: UnsafePointer<Float>, outputs: Int, inputs: Int, spread: Float) {
        self.outputs = outputs
        self.inputs = inputs
        self.spread = spread
        let channels = Int8Dense.paddedChannels(outputs)
        codes = Storage(count: channels * Int8Dense.paddedInputs(inputs))
        scale = Storage(count: channels)
        sums = Storage(count: channels)
        Int8Dense.pack(w, outputs: outputs, inputs: inputs, codes: codes.pointer, scale: scale.pointer, sums: sums.pointer)
        transposed = Storage(count: inputs * outputs)
        Int8Dense.packOutlierWeights(w, outputs: outputs, inputs: inputs, into: transposed.pointer)
    }

    /// y[rows × outputs] += x · Wᵀ for the channels `columns` (a range starting at a multiple of 16), from
    /// rows `first ..< first + count` of `q`, quantised from this layer's input; with `bias` (`outputs`
    /// floats), y = bias + x · Wᵀ instead, or y = (residual + bias) + x · Wᵀ with `residual` (rows of `outputs`
    /// floats, at the same rows as y), y's contents unread.
    func apply(_ q: QuantizedRows, rows: Range<Int>, bias: UnsafePointer<Float>? = nil, residual: UnsafePointer<Float>? = nil,
               into y: UnsafeMutablePointer<Float>, columns: Range<Int>) {
        let first = columns.lowerBound
        let w = Int8Dense.Weights(codes: codes.pointer + first * Int8Dense.paddedInputs(inputs), scale: scale.pointer + first,
                                  sums: sums.pointer + first, transposed: transposed.pointer + first, stride: outputs)
        Int8Dense.multiply(q.rows(rows.lowerBound, inputs: inputs), rows: rows.count, w, outputs: columns.count, inputs: inputs,
                           bias: bias.map { $0 + first }, residual: residual.map { $0 + rows.lowerBound * outputs + first }, residualStride: outputs,
                           into: y + rows.lowerBound * outputs + first, stride: outputs)
    }

    /// Quantises rows `rows` of x (`inputs` floats each) into the same rows of `q`.
    func quantize(_ x: UnsafePointer<Float>, rows: Range<Int>, into q: QuantizedRows) {
        Int8Dense.quantize(x + rows.lowerBound * inputs, stride: inputs, rows: rows.count, inputs: inputs, spread: spread, into: q.rows(rows.lowerBound, inputs: inputs))
    }
}

/// A dense layer's input rows quantised (`Int8Dense.quantize`), for inputs of up to
/// `maxInputs` values; each dense layer of a pass overwrites them.
final class QuantizedRows: @unchecked Sendable {
    let codes: Storage<UInt8>, scale: Storage<Float>, zero: Storage<Int32>, outliers: Storage<Int32>, values: Storage<Float>, counts: Storage<Int32>

    init(rows: Int, maxInputs: Int) {
        let cap = Int8Dense.outlierCapacity(maxInputs)
        codes = Storage(count: Int8Dense.rowsSize(rows, inputs: maxInputs))
        scale = Storage(count: rows)
        zero = Storage(count: rows)
        outliers = Storage(count: rows * cap)
        values = Storage(count: rows * cap)
        counts = Storage(count: rows)
    }

    /// Row `first` (a multiple of 8: the codes' blocks) onwards, laid out for inputs of `inputs` values.
    func rows(_ first: Int, inputs: Int) -> Int8Dense.Rows {
        precondition(first % 8 == 0, "quantised rows start at a block of 8")
        let cap = Int8Dense.outlierCapacity(inputs)
        return Int8Dense.Rows(codes: codes.pointer + first * Int8Dense.paddedInputs(inputs), scale: scale.pointer + first, zero: zero.pointer + first,
                              outliers: outliers.pointer + first * cap, outlierValues: values.pointer + first * cap, outlierCounts: counts.pointer + first)
    }
}

/// The quantised dense layers of one encoder layer.
struct QuantizedLayer: Sendable {
    /// Outliers of a LayerNorm's or the attention's output rows: past 3 times the row's rms.
    static let spread: Float = 3
    /// Outliers of the GELU rows the feed-forward output reads: past 5 times the row's rms. GELU leaves
    /// nothing below −0.17 and a long positive tail, so a row's range lies mostly above zero and its
    /// 255 steps are about as fine at 5 rms as a symmetric code's 127 a side at 3, with far fewer
    /// outliers (each a row of weights read from memory); see bench/embedder/RESULTS.md.
    static let geluSpread: Float = 5
    let qkv: QuantizedDense
    let attentionOut: QuantizedDense
    let intermediate: QuantizedDense
    let output: QuantizedDense

    init(_ l: BertLayerWeights, hidden h: Int, intermediate i: Int) {
        qkv = QuantizedDense(l.qkvWeight, outputs: 3 * h, inputs: h, spread: Self.spread)
        attentionOut = QuantizedDense(l.attentionOutWeight, outputs: h, inputs: h, spread: Self.spread)
        intermediate = QuantizedDense(l.intermediateWeight, outputs: i, inputs: h, spread: Self.spread)
        output = QuantizedDense(l.outputWeight, outputs: h, inputs: i, spread: Self.geluSpread)
    }
}
