/// How a `BoundedHeap` ranks its elements: `better(a, b)` is a strict order with every tie broken
/// (by id), so that the kept set and its order are deterministic.
public protocol BestFirst {
    static func better(_ a: Self, _ b: Self) -> Bool
}

/// A row of an index with its score. Order: higher score first, ties broken by lower rowid
/// (deterministic). The vector index's `ScoredRow` (float32 cosine) and the keyword index's
/// `KeywordHit` (BM25, FTS5's `ORDER BY bm25(...), rowid`).
@frozen
public struct RankedRow<Score: BinaryFloatingPoint & Sendable>: Sendable, Equatable, BestFirst {
    public var rowid: Int64
    public var score: Score

    @inlinable
    public init(rowid: Int64, score: Score) {
        self.rowid = rowid
        self.score = score
    }

    @inlinable @inline(__always)
    public static func better(_ a: Self, _ b: Self) -> Bool {
        a.score > b.score || (a.score == b.score && a.rowid < b.rowid)
    }
}

/// The best `k` elements offered so far: a min-heap on `Element.better` whose root is the worst
/// element kept, the one a new element must beat once `k` are held. The one top-k selection of
/// the vector and keyword indexes; inlinable so that each use is specialised for its element.
@frozen
public struct BoundedHeap<Element: BestFirst> {
    public let k: Int
    @usableFromInline var heap: [Element] = []

    @inlinable
    public init(k: Int, reserving capacity: Int? = nil) {
        self.k = max(0, k)
        heap.reserveCapacity(capacity ?? self.k)
    }

    /// `k` elements are held (true at once when `k` is 0).
    @inlinable
    public var isFull: Bool { heap.count >= k }

    /// The worst element kept; nil when none is.
    @inlinable
    public var worst: Element? { heap.first }

    @inlinable
    public mutating func offer(_ x: Element) {
        if heap.count < k {
            heap.append(x)
            var c = heap.count - 1
            while c > 0 {
                let p = (c - 1) / 2
                if Element.better(heap[p], heap[c]) { heap.swapAt(p, c); c = p } else { break }
            }
        } else if k > 0, Element.better(x, heap[0]) {
            heap[0] = x
            var p = 0
            let n = heap.count
            while true {
                let l = 2 * p + 1, r = l + 1
                var w = p
                if l < n, Element.better(heap[w], heap[l]) { w = l }
                if r < n, Element.better(heap[w], heap[r]) { w = r }
                if w == p { return }
                heap.swapAt(p, w)
                p = w
            }
        }
    }

    /// The kept elements, best first.
    @inlinable
    public func sorted() -> [Element] { heap.sorted(by: Element.better) }
}
