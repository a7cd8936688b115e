/// The `k` best (quantised score, group id) pairs offered in ascending id order, best first by
/// (−score, id). Offers that cannot enter are turned away on the raw score alone.
struct TopCandidates {
    let k: Int
    let scale: Float
    private(set) var best: [(id: Int64, q: Int)] = []
    /// Raw scores below this cannot beat the current K-th (infinite until K are held).
    private var floor = -Float.infinity

    init(k: Int, scale: Int) {
        self.k = k
        self.scale = Float(scale)
        best.reserveCapacity(k + 1)
    }

    /// False when a group with raw score `s` cannot enter: its quantised score would be at most the
    /// K-th's (a later offer has a higher id, so a tie does not enter either). The floor keeps
    /// 0.1 quantum of slack against float rounding; `offer` decides exactly.
    @inline(__always)
    func admits(_ s: Float) -> Bool { s >= floor }

    /// Offers `id` with quantised score `q`; ids must come in ascending order.
    mutating func offer(_ id: Int64, _ q: Int) {
        guard k > 0 else { return }
        if best.count == k, q <= best[k - 1].q { return }
        var at = best.count
        while at > 0 && best[at - 1].q < q { at -= 1 }
        best.insert((id, q), at: at)
        if best.count > k { best.removeLast() }
        if best.count == k { floor = (Float(best[k - 1].q) + 0.4) / scale }
    }
}
