internal import CLAPACKE

public enum EigenError: Error, Equatable { case failed(code: Int) }

public enum Eigen {
    /// Eigen-decomposition of a symmetric n×n matrix (row-major). Returns eigenvalues ascending and
    /// the eigenvectors as rows of a matrix (row i pairs with value i).
    public static func symmetric(_ m: Matrix) throws -> (values: [Float], vectors: Matrix) {
        precondition(m.rows == m.cols, "matrix must be square")
        let n = m.rows
        var a = m.storage
        var w = [Float](repeating: 0, count: n)
        let info = a.withUnsafeMutableBufferPointer { pa in
            w.withUnsafeMutableBufferPointer { pw in kindred_ssyevd(Int32(n), pa.baseAddress!, Int32(n), pw.baseAddress!) }
        }
        guard info == 0 else { throw EigenError.failed(code: Int(info)) }
        // LAPACK returns eigenvectors in columns; transpose to rows.
        var vecs = Matrix(rows: n, cols: n)
        for i in 0..<n { for j in 0..<n { vecs[j, i] = a[i * n + j] } }
        return (w, vecs)
    }
}
