import LinearAlgebra

/// One scored hit. Order: higher score first; ties broken by lower rowid (deterministic).
public struct ScoredRow: Sendable, Equatable, BestFirst {
    public var rowid: Int64
    public var score: Float
    public init(rowid: Int64, score: Float) {
        self.rowid = rowid
        self.score = score
    }

    @inline(__always)
    public static func better(_ a: ScoredRow, _ b: ScoredRow) -> Bool {
        a.score > b.score || (a.score == b.score && a.rowid < b.rowid)
    }
}

/// The best `k` rows seen.
typealias TopK = BoundedHeap<ScoredRow>

extension BoundedHeap where Element == ScoredRow {
    /// The score a new row must beat to enter (−∞ until full).
    var threshold: Float { isFull ? worst?.score ?? .infinity : -.infinity }
}
