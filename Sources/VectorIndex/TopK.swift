/// One scored hit. Order: higher score first; ties broken by lower rowid (deterministic).
public struct ScoredRow: Sendable, Equatable {
    public var rowid: Int64
    public var score: Float
    public init(rowid: Int64, score: Float) {
        self.rowid = rowid
        self.score = score
    }

    @inline(__always)
    static func better(_ a: ScoredRow, _ b: ScoredRow) -> Bool {
        a.score > b.score || (a.score == b.score && a.rowid < b.rowid)
    }
}

/// A bounded min-heap keeping the best `k` rows seen.
struct TopK {
    let k: Int
    private(set) var heap: [ScoredRow] = []

    init(k: Int) {
        self.k = k
        heap.reserveCapacity(k)
    }

    /// The score a new row must beat to enter (−∞ until full).
    var threshold: Float { heap.count < k ? -.infinity : heap[0].score }

    @inline(__always)
    mutating func offer(_ row: ScoredRow) {
        guard k > 0 else { return }
        if heap.count < k {
            heap.append(row)
            siftUp(heap.count - 1)
        } else if ScoredRow.better(row, heap[0]) {
            heap[0] = row
            siftDown(0)
        }
    }

    // The root holds the *worst* kept row.
    private mutating func siftUp(_ i: Int) {
        var c = i
        while c > 0 {
            let p = (c - 1) / 2
            if ScoredRow.better(heap[p], heap[c]) { heap.swapAt(p, c); c = p } else { break }
        }
    }

    private mutating func siftDown(_ i: Int) {
        var p = i
        let n = heap.count
        while true {
            let l = 2 * p + 1, r = l + 1
            var worst = p
            if l < n, ScoredRow.better(heap[worst], heap[l]) { worst = l }
            if r < n, ScoredRow.better(heap[worst], heap[r]) { worst = r }
            if worst == p { return }
            heap.swapAt(p, worst)
            p = worst
        }
    }

    /// The kept rows, best first.
    func sorted() -> [ScoredRow] { heap.sorted(by: ScoredRow.better) }
}
