import LinearAlgebra

/// Centroid scores of a block of occurrences, computed with one GEMM (occurrences × unit
/// centroids), and when: rows of groups changed after `at` are stale for it.
struct ScoreBlock {
    private var rowOf: [Int64: Int] = [:]
    private(set) var scores = Matrix(rows: 0, cols: 0)
    /// `Workspace.touchLog.count` when the scores were computed.
    private(set) var at = -1

    init() {}

    init(_ ids: [Int64], _ occurrences: [Int64: Occurrence], centroids: Matrix, at: Int) {
        let d = centroids.cols
        var x: [Float] = []
        x.reserveCapacity(ids.count * d)
        for (i, id) in ids.enumerated() {
            x.append(contentsOf: occurrences.vectorOf(id)!)
            rowOf[id] = i
        }
        scores = Matrix(rows: ids.count, cols: d, storage: x).timesTransposed(centroids)
        self.at = at
    }

    func row(of id: Int64) -> Int? { rowOf[id] }
}
