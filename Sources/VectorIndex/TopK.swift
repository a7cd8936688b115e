import LinearAlgebra

/// One hit of a vector search: the row and its float32 cosine, best first.
public typealias ScoredRow = RankedRow<Float>

/// The best `k` rows seen.
typealias TopK = BoundedHeap<ScoredRow>

extension BoundedHeap where Element == ScoredRow {
    /// The score a new row must beat to enter (−∞ until full).
    var threshold: Float { isFull ? worst?.score ?? .infinity : -.infinity }
}
