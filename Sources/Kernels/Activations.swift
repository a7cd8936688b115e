internal import CKernels

/// GELU and softmax of the encoder's forward pass (`activations.c`): AVX-512 where the CPU has it,
/// portable C otherwise (compiled for FMA where the CPU has it), with the same bits (every fused
/// multiply-add written out in both).
public enum Activations {
    /// GELU in place, erf form: 0.5·x·(1 + erf(x/√2)), erf within 4.2e-7 (a rational approximation
    /// that vectorises, three orders of magnitude closer than the tanh form).
    public static func gelu(_ x: UnsafeMutablePointer<Float>, count: Int, path: KernelPath = .dispatched) {
        switch path {
        case .dispatched: kindred_gelu(x, count)
        case .reference: kindred_gelu_reference(x, count)
        }
    }

    /// Softmax of each row of a `rows × cols` matrix in place.
    public static func softmaxRows(_ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int, path: KernelPath = .dispatched) {
        switch path {
        case .dispatched: kindred_softmax_rows(x, rows, cols)
        case .reference: kindred_softmax_rows_reference(x, rows, cols)
        }
    }

    /// eˣ as the softmax computes it (for tests).
    static func exp(_ x: Float) -> Float { kindred_expf(x) }
    /// erf(x) as GELU computes it (for tests).
    static func erf(_ x: Float) -> Float { kindred_erff(x) }
}
