import Kernels

/// Int8 codes of rows (`Int8RowCodes`), appended one row at a time, with an upper bound of x · q for
/// every row and one query in a pass over a quarter of the bytes the float32 rows take.
///
/// A speed part of `PendingIndex.reachable`: it only tells which rows *may* reach a bound; the
/// caller decides with the exact product (`PendingIndexTests` checks the bound on every row).
final class RowCodes {
    private var codes: Int8RowCodes
    /// ‖x‖ of each row, rounded up.
    private var norm: [Float] = []

    init(d: Int, capacity: Int = 0) {
        codes = Int8RowCodes(dimension: d)
        norm.reserveCapacity(capacity)
    }

    private init(codes: Int8RowCodes, norm: [Float]) {
        self.codes = codes
        self.norm = norm
    }

    var d: Int { codes.dimension }
    var rows: Int { codes.count }

    /// A copy of the first `n` rows.
    func copy(rows n: Int) -> RowCodes {
        var c = codes
        c.truncate(to: n)
        return RowCodes(codes: c, norm: Array(norm[0..<n]))
    }

    /// Appends the `d` values at `v`.
    func append(_ v: UnsafePointer<Float>) {
        codes.append(v)
        var n2: Double = 0
        for j in 0..<d { n2 += Double(v[j]) * Double(v[j]) }
        norm.append(Float(n2.squareRoot() * (1 + 1e-6)).nextUp)
    }

    /// An upper bound of x · q for every row x (`q`: `d` values), rows in order.
    func upperBounds(_ q: UnsafePointer<Float>) -> [Float] {
        guard rows > 0 else { return [] }
        let coded = Int8Query(q, dimension: d)
        // With q̂ = scale · (u − 128) (the first level) and x̂ the row's code:
        // |q·x − q̂·x̂| ≤ ‖q̂‖ ‖x − x̂‖ + ‖q − q̂‖ ‖x‖; add the rounding of the float arithmetic below.
        let qnorm = Float(coded.firstNorm).nextUp, residual = Float(coded.firstResidual).nextUp
        let rounding: Float = 1e-4 + Float(d) * 1.2e-7
        var dots = [Int32](repeating: 0, count: codes.groups * 16)
        codes.withView { view in
            coded.codes.withUnsafeBufferPointer { u in
                dots.withUnsafeMutableBufferPointer { Int8Scan.dots(u.baseAddress!, codes: view.codes, groups: view.groups, padded: view.padded, into: $0.baseAddress!) }
            }
        }
        let qs = coded.scale
        let (scale, err, csum) = (codes.scales, codes.errors, codes.sums)
        var out = [Float](repeating: 0, count: rows)
        for r in 0..<rows {
            let approx = scale[r] * (qs * Float(dots[r] - 128 * csum[r]))
            out[r] = approx + qnorm * err[r] + residual * norm[r] + rounding
        }
        return out
    }
}
