internal import CKernels

/// A query coded for the int8 scan in two levels (`kindred_i8_query`): q ≈ scale · (u − 128) +
/// scale2 · (v − 128) with u and v unsigned bytes, the second level coding what the first leaves.
public struct Int8Query: Sendable {
    /// u then v, `padded` bytes each.
    public let codes: [UInt8]
    public let padded: Int
    public let scale: Float
    public let scale2: Float
    /// Upper bounds of ‖q̂‖ and of the residual ‖q − q̂‖, q̂ both levels.
    public let norm: Double
    public let residual: Double
    /// The same for the first level alone, q̂₁ = scale · (u − 128).
    public let firstNorm: Double
    public let firstResidual: Double

    /// Codes the `dimension` floats at `q` for rows coded with that dimension.
    public init(_ q: UnsafePointer<Float>, dimension d: Int) {
        let dp = Int8RowCodes.padded(d)
        var codes = [UInt8](repeating: 128, count: 2 * dp)
        var scales: [Float] = [0, 0]
        var norm = 0.0
        var first: [Double] = [0, 0]
        residual = codes.withUnsafeMutableBufferPointer { kindred_i8_query(q, d, dp, $0.baseAddress!, &scales, &norm, &first) }
        self.codes = codes
        padded = dp
        scale = scales[0]
        scale2 = scales[1]
        self.norm = norm
        firstNorm = first[0]
        firstResidual = first[1]
    }
}
