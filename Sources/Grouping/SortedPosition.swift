/// Binary search: the one way the engine finds a place in ascending data (ids, versions).
enum SortedPosition {
    /// The first index of `0..<count` at which `reached` holds, for a `reached` that is false up
    /// to some index and true from there on (`count` when it never holds).
    @inline(__always)
    static func first(in count: Int, where reached: (Int) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if reached(mid) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}

extension Array where Element: Comparable {
    /// Where `x` is or would go in this ascending array (before any element equal to it).
    @inline(__always)
    func insertionPoint(of x: Element) -> Int {
        SortedPosition.first(in: count) { self[$0] >= x }
    }

    /// The first position of this ascending array holding a value above `x`.
    @inline(__always)
    func firstPosition(above x: Element) -> Int {
        SortedPosition.first(in: count) { self[$0] > x }
    }

    /// The position of `x` in this ascending array, when it holds it.
    @inline(__always)
    func sortedPosition(of x: Element) -> Int? {
        let i = insertionPoint(of: x)
        return i < count && self[i] == x ? i : nil
    }
}
