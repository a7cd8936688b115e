internal import CKernels

/// LayerNorm of the encoder's rows (`layer_norm.c`): AVX-512 where the CPU has it, portable C
/// otherwise, with the same bits.
public enum LayerNorm {
    /// Each of `rows` rows of `cols` floats in place: (x − mean) / √(var + eps) · γ + β, variance biased.
    public static func rows(_ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int, gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>,
                            eps: Float, path: KernelPath = .dispatched) {
        switch path {
        case .dispatched: kindred_layer_norm(x, rows, cols, gamma, beta, eps)
        case .reference: kindred_layer_norm_reference(x, rows, cols, gamma, beta, eps)
        }
    }
}
