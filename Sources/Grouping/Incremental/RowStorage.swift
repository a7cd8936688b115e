/// Row-major float storage that grows by whole rows, with a stable base address between changes
/// (so that the hot loops need no closure to reach it).
final class RowStorage {
    private(set) var base: UnsafeMutablePointer<Float>
    private var capacity: Int
    private(set) var rows = 0
    let d: Int

    init(d: Int, capacity: Int = 0) {
        self.d = d
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity * max(1, d))
    }

    deinit { base.deallocate() }

    /// A copy of the first `n` rows, with room to grow.
    func copy(rows n: Int) -> RowStorage {
        let c = RowStorage(d: d, capacity: n + n / 8 + 64)
        c.base.update(from: base, count: n * d)
        c.rows = n
        return c
    }

    func removeAll(keepingCapacity n: Int) {
        rows = 0
        reserve(n)
    }

    /// Appends the `d` values at `v`.
    func append(_ v: UnsafePointer<Float>) {
        reserve(rows + 1)
        (base + rows * d).update(from: v, count: d)
        rows += 1
    }

    /// Appends `v` (d values) or, for nil, a row of zeros.
    func append(_ v: [Float]?) {
        reserve(rows + 1)
        let row = base + rows * d
        if let v { v.withUnsafeBufferPointer { row.update(from: $0.baseAddress!, count: d) } } else { row.update(repeating: 0, count: d) }
        rows += 1
    }

    private func reserve(_ n: Int) {
        guard n > capacity else { return }
        let grown = max(n, capacity * 2)
        let new = UnsafeMutablePointer<Float>.allocate(capacity: grown * max(1, d))
        new.update(from: base, count: rows * d)
        base.deallocate()
        base = new
        capacity = grown
    }
}
