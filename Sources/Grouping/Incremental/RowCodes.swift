import CKernels

/// Int8 codes of rows (`kindred_i8_encode`: per row a scale, an upper bound of the coding error's norm
/// and the codes' sum), appended one row at a time, with an upper bound of x · q for every row and one
/// query in a pass over a quarter of the bytes the float32 rows take.
///
/// A speed part of `PendingIndex.reachable`: it only tells which rows *may* reach a bound; the
/// caller decides with the exact product (`PendingIndexTests` checks the bound on every row).
final class RowCodes {
    let d: Int
    /// `d` padded to a multiple of 4 (the codes' width).
    let dp: Int
    private(set) var rows = 0
    /// Groups of 16 rows allocated; slots past `rows` hold zero codes.
    private var groups = 0
    private var codes: UnsafeMutablePointer<Int8>
    private var scale: [Float] = []
    private var err: [Float] = []
    private var csum: [Int32] = []
    /// ‖x‖ of each row, rounded up.
    private var norm: [Float] = []

    init(d: Int, capacity: Int = 0) {
        self.d = d
        dp = (d + 3) / 4 * 4
        groups = max(1, (capacity + 15) / 16)
        codes = .allocate(capacity: groups * 16 * dp)
        codes.initialize(repeating: 0, count: groups * 16 * dp)
    }

    deinit { codes.deallocate() }

    /// A copy of the first `n` rows, with room to grow.
    func copy(rows n: Int) -> RowCodes {
        let c = RowCodes(d: d, capacity: n + n / 8 + 64)
        // Whole groups are copied; the slots of the last one past `n` are zeroed again.
        let full = (n + 15) / 16
        c.codes.update(from: codes, count: full * 16 * dp)
        for slot in n..<(full * 16) { kindred_i8_clear(c.codes, slot, dp) }
        c.rows = n
        c.scale = Array(scale[0..<n]); c.err = Array(err[0..<n]); c.csum = Array(csum[0..<n]); c.norm = Array(norm[0..<n])
        return c
    }

    /// Appends the `d` values at `v`.
    func append(_ v: UnsafePointer<Float>) {
        reserve(rows + 1)
        var s: Float = 0, e: Float = 0, m: Int32 = 0
        kindred_i8_encode(v, d, dp, codes, rows, &s, &e, &m)
        var n2: Double = 0
        for j in 0..<d { n2 += Double(v[j]) * Double(v[j]) }
        scale.append(s); err.append(e); csum.append(m); norm.append(Float(n2.squareRoot() * (1 + 1e-6)).nextUp)
        rows += 1
    }

    private func reserve(_ n: Int) {
        let need = (n + 15) / 16
        guard need > groups else { return }
        let grown = max(need, groups * 2)
        let new = UnsafeMutablePointer<Int8>.allocate(capacity: grown * 16 * dp)
        new.update(from: codes, count: groups * 16 * dp)
        (new + groups * 16 * dp).initialize(repeating: 0, count: (grown - groups) * 16 * dp)
        codes.deallocate()
        codes = new
        groups = grown
    }

    /// An upper bound of x · q for every row x (`q`: `d` values), rows in order.
    func upperBounds(_ q: UnsafePointer<Float>) -> [Float] {
        guard rows > 0 else { return [] }
        var qu = [UInt8](repeating: 128, count: 2 * dp)
        var scales: [Float] = [0, 0]
        var approxNorm = 0.0
        var first: [Double] = [0, 0]
        _ = qu.withUnsafeMutableBufferPointer { kindred_i8_query(q, d, dp, $0.baseAddress!, &scales, &approxNorm, &first) }
        // With q̂ = scale · (u − 128) (the first level) and x̂ the row's code:
        // |q·x − q̂·x̂| ≤ ‖q̂‖ ‖x − x̂‖ + ‖q − q̂‖ ‖x‖; add the rounding of the float arithmetic below.
        let qnorm = Float(first[0]).nextUp, residual = Float(first[1]).nextUp
        let rounding: Float = 1e-4 + Float(d) * 1.2e-7
        let used = (rows + 15) / 16
        var dots = [Int32](repeating: 0, count: used * 16)
        qu.withUnsafeBufferPointer { u in
            dots.withUnsafeMutableBufferPointer { kindred_i8_dots(u.baseAddress!, codes, used, dp, $0.baseAddress!) }
        }
        let qs = scales[0]
        var out = [Float](repeating: 0, count: rows)
        for r in 0..<rows {
            let approx = scale[r] * (qs * Float(dots[r] - 128 * csum[r]))
            out[r] = approx + qnorm * err[r] + residual * norm[r] + rounding
        }
        return out
    }
}
