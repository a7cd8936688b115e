/// Principal component analysis of a few hundred points in a few hundred dimensions: the covariance
/// of the centred rows (accumulated in Double, in row order, so equal inputs give equal bits), its
/// eigenvectors by LAPACK `ssyevd`, the rows projected on the leading ones.
///
/// Each component's sign is fixed: its entry of largest magnitude (the first such entry on a tie)
/// is positive, so the same points always give the same picture, not a mirror of it.
public enum PCA {
    public struct Projection: Sendable, Equatable {
        /// One row per input row, `components` columns.
        public var coordinates: Matrix
        /// The variance along each component (eigenvalues of the covariance, descending, ≥ 0).
        public var variances: [Float]
        /// The components as unit rows (`components` × dimension).
        public var axes: Matrix
        /// The total variance of the points (trace of the covariance): `variances[i] / totalVariance`
        /// is the share of the spread component `i` shows.
        public var totalVariance: Float
    }

    /// Projects the rows of `points` (n × d) on their first `components` principal axes.
    /// With fewer than two rows, or a component with (numerically) no variance, the coordinates
    /// along it are 0.
    public static func project(_ points: Matrix, components: Int = 2) throws -> Projection {
        precondition(components >= 1, "components must be positive")
        let n = points.rows, d = points.cols
        let k = min(components, d)
        var coordinates = Matrix(rows: n, cols: components)
        var axes = Matrix(rows: components, cols: d)
        var variances = [Float](repeating: 0, count: components)
        guard n >= 2, d >= 1 else { return Projection(coordinates: coordinates, variances: variances, axes: axes, totalVariance: 0) }

        var mean = [Double](repeating: 0, count: d)
        for r in 0..<n { for c in 0..<d { mean[c] += Double(points[r, c]) } }
        for c in 0..<d { mean[c] /= Double(n) }
        var centred = [Double](repeating: 0, count: n * d)
        for r in 0..<n { for c in 0..<d { centred[r * d + c] = Double(points[r, c]) - mean[c] } }

        // Upper triangle of XᵀX / (n − 1), mirrored.
        var cov = Matrix(rows: d, cols: d)
        var acc = [Double](repeating: 0, count: d)
        for i in 0..<d {
            for j in i..<d { acc[j] = 0 }
            for r in 0..<n {
                let xi = centred[r * d + i]
                if xi == 0 { continue }
                let base = r * d
                for j in i..<d { acc[j] += xi * centred[base + j] }
            }
            for j in i..<d {
                let v = Float(acc[j] / Double(n - 1))
                cov[i, j] = v
                cov[j, i] = v
            }
        }

        var trace = 0.0
        for i in 0..<d { trace += Double(cov[i, i]) }
        let (values, vectors) = try Eigen.symmetric(cov)
        let largest = values.last.map { max($0, 0) } ?? 0
        // Below this a direction is rounding noise of the eigensolver, not spread of the points.
        let floor = max(largest, 1e-12) * 1e-5
        for c in 0..<k {
            let at = d - 1 - c
            let variance = values[at]
            guard variance > floor else { continue }
            var axis = Array(vectors.row(at))
            var pivot = 0
            for j in 1..<d where abs(axis[j]) > abs(axis[pivot]) { pivot = j }
            if axis[pivot] < 0 { for j in 0..<d { axis[j] = -axis[j] } }
            axes.setRow(c, axis)
            variances[c] = variance
            for r in 0..<n {
                var s = 0.0
                for j in 0..<d { s += centred[r * d + j] * Double(axis[j]) }
                coordinates[r, c] = Float(s)
            }
        }
        return Projection(coordinates: coordinates, variances: variances, axes: axes, totalVariance: Float(trace))
    }
}
