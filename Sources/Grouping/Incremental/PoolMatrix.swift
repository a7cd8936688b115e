import LinearAlgebra

/// The pending pool of a scope as one contiguous row-major matrix, for scoring a block of
/// occurrences against all of it with one GEMM. Rows of members taken by a new group are dropped
/// in batches (once a quarter of the rows are taken), so later blocks score only what is left.
struct PoolMatrix {
    let d: Int
    /// Pool index of each row, ascending.
    private(set) var index: [Int]
    private var storage: [Float]
    /// Taken pool indices (by pool index).
    private var taken: [Bool]
    private var takenRows = 0
    /// Reused output buffer.
    private var scores: [Float] = []

    init(_ vectors: [[Float]], d: Int) {
        self.d = d
        index = Array(vectors.indices)
        taken = [Bool](repeating: false, count: vectors.count)
        storage = []
        storage.reserveCapacity(vectors.count * d)
        for v in vectors { storage.append(contentsOf: v) }
    }

    var rows: Int { index.count }

    /// Marks pool index `j` taken; its row is skipped from the next compaction on.
    mutating func take(_ j: Int) {
        guard !taken[j] else { return }
        taken[j] = true
        takenRows += 1
    }

    /// Drops the taken rows once they are a quarter of the matrix.
    mutating func compactIfWorthIt() {
        guard takenRows * 4 >= max(1, index.count) else { return }
        var w = 0
        storage.withUnsafeMutableBufferPointer { s in
            for r in index.indices where !taken[index[r]] {
                if w != r { for i in 0..<d { s[w * d + i] = s[r * d + i] } }
                index[w] = index[r]
                w += 1
            }
        }
        index.removeLast(index.count - w)
        storage.removeLast(storage.count - w * d)
        takenRows = 0
    }

    /// Calls `body` with the `count × rows` scores of the `count` row-major vectors in `x` against
    /// every row (row r of the block at `r * rows`).
    mutating func score<R>(_ x: [Float], count: Int, _ body: (UnsafeBufferPointer<Float>) -> R) -> R {
        let n = index.count
        if scores.count < count * n { scores = [Float](repeating: 0, count: count * n) }
        if n > 0 && count > 0 {
            x.withUnsafeBufferPointer { a in
                storage.withUnsafeBufferPointer { b in
                    scores.withUnsafeMutableBufferPointer { c in
                        BLAS.gemm(a.baseAddress!, b.baseAddress!, c.baseAddress!, m: count, n: n, k: d, transB: true)
                    }
                }
            }
        }
        return scores.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<(count * n)])) }
    }
}
