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

/// Byte storage for quantised codes; freed with the last reference.
final class ByteBuffer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    init(count: Int) { pointer = .allocate(capacity: max(count, 1)) }
    deinit { pointer.deallocate() }
}

/// One linear layer's weights `[outputs × inputs]` quantised per output channel (see `kindred_gemm_i8_pack`).
struct QuantizedDense: @unchecked Sendable {
    let outputs: Int, inputs: Int
    /// Bytes per quantised row (inputs rounded up to 4).
    let paddedInputs: Int
    let codes: ByteBuffer
    let scale: FloatBuffer
    let sums: [Int32]

    init(_ w: UnsafePointer<Float>, outputs: Int, inputs: Int) {
        self.outputs = outputs
        self.inputs = inputs
        let kp = kindred_gemm_i8_padded(inputs), channels = kindred_gemm_i8_padded_channels(outputs)
        paddedInputs = kp
        codes = ByteBuffer(count: channels * kp)
        scale = FloatBuffer(count: channels)
        var sums = [Int32](repeating: 0, count: channels)
        let (c, s) = (codes.pointer, scale.pointer)
        sums.withUnsafeMutableBufferPointer { buf in
            c.withMemoryRebound(to: Int8.self, capacity: channels * kp) {
                kindred_gemm_i8_pack(w, outputs, inputs, $0, s, buf.baseAddress!)
            }
        }
        self.sums = sums
    }

    /// y[rows × outputs] += x · Wᵀ for channels `columns` (a range starting at a multiple of 16), from
    /// rows already quantised into `u` / `uscale` (see `quantize`).
    func apply(_ u: UnsafePointer<UInt8>, _ uscale: UnsafePointer<Float>, rows: Int, into y: UnsafeMutablePointer<Float>,
               columns: Range<Int>) {
        let first = columns.lowerBound
        sums.withUnsafeBufferPointer { s in
            UnsafeRawPointer(codes.pointer + first * paddedInputs).withMemoryRebound(to: Int8.self, capacity: 1) { c in
                kindred_gemm_i8(u, uscale, rows, c, scale.pointer + first, s.baseAddress! + first, columns.count, paddedInputs,
                                y + first, outputs)
            }
        }
    }

    /// Quantises rows of x (`inputs` floats each, stride `inputs`) into u and uscale.
    func quantize(_ x: UnsafePointer<Float>, rows: Int, into u: UnsafeMutablePointer<UInt8>, _ uscale: UnsafeMutablePointer<Float>) {
        kindred_gemm_i8_quantize_rows(x, inputs, rows, inputs, u, uscale)
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
