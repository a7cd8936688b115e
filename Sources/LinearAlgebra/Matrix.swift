/// A dense row-major float32 matrix in one contiguous allocation.
public struct Matrix: Sendable, Equatable {
    public private(set) var rows: Int
    public let cols: Int
    public var storage: [Float]

    public init(rows: Int, cols: Int, repeating value: Float = 0) {
        self.rows = rows
        self.cols = cols
        self.storage = [Float](repeating: value, count: rows * cols)
    }

    public init(rows: Int, cols: Int, storage: [Float]) {
        precondition(storage.count == rows * cols, "storage size mismatch")
        self.rows = rows
        self.cols = cols
        self.storage = storage
    }

    public subscript(r: Int, c: Int) -> Float {
        get { storage[r * cols + c] }
        set { storage[r * cols + c] = newValue }
    }

    public func row(_ r: Int) -> ArraySlice<Float> { storage[(r * cols)..<((r + 1) * cols)] }

    public mutating func appendRow(_ v: [Float]) {
        precondition(v.count == cols, "row length mismatch")
        storage.append(contentsOf: v)
        rows += 1
    }

    /// Replaces row `r` with `v`.
    public mutating func setRow(_ r: Int, _ v: [Float]) {
        precondition(v.count == cols, "row length mismatch")
        storage.replaceSubrange((r * cols)..<((r + 1) * cols), with: v)
    }

    /// Inserts `v` as row `r` (rows from `r` on move down).
    public mutating func insertRow(_ v: [Float], at r: Int) {
        precondition(v.count == cols, "row length mismatch")
        storage.insert(contentsOf: v, at: r * cols)
        rows += 1
    }

    /// Removes row `r` (rows after it move up).
    public mutating func removeRow(_ r: Int) {
        storage.removeSubrange((r * cols)..<((r + 1) * cols))
        rows -= 1
    }

    /// Moves the last row into `r` and drops the last row (O(d) delete).
    public mutating func swapRemoveRow(_ r: Int) {
        let last = rows - 1
        if r != last {
            for c in 0..<cols { storage[r * cols + c] = storage[last * cols + c] }
        }
        storage.removeLast(cols)
        rows -= 1
    }

    /// self · otherᵀ  ([rows × other.rows]).
    public func timesTransposed(_ other: Matrix) -> Matrix {
        precondition(cols == other.cols, "dimension mismatch")
        var out = Matrix(rows: rows, cols: other.rows)
        guard rows > 0, other.rows > 0 else { return out }
        storage.withUnsafeBufferPointer { a in
            other.storage.withUnsafeBufferPointer { b in
                out.storage.withUnsafeMutableBufferPointer { c in
                    BLAS.gemm(a.baseAddress!, b.baseAddress!, c.baseAddress!,
                              m: rows, n: other.rows, k: cols, transB: true)
                }
            }
        }
        return out
    }
}
