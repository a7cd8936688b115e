/// The vectors of a scope's pending occurrences as the rows of one contiguous matrix, ids
/// ascending, kept across calls in the `EngineCache`: re-checking thousands of certificates then
/// streams through it instead of looking every occurrence up. Occurrences that leave are marked
/// dead; new ones above every id are appended; anything else rebuilds it.
struct PendingRows {
    private(set) var ids: [Int64] = []
    private var alive: [Bool] = []
    private var storage: RowStorage
    private var dead = 0
    let d: Int

    init(d: Int) {
        self.d = d
        storage = RowStorage(d: d)
    }

    /// Brings the rows in line with `pending` (the scope's pending ids, ascending).
    mutating func sync(to pending: [Int64], _ occurrences: [Int64: Occurrence]) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        // Walk both lists: ids that left are marked dead; ids that arrived must all be above the
        // last row (appended), else rebuild.
        var arrived: [Int64] = []
        var i = 0, j = 0
        var ok = true
        while j < pending.count {
            if i < ids.count && ids[i] < pending[j] {
                if alive[i] { alive[i] = false; dead += 1 }
                i += 1
            } else if i < ids.count && ids[i] == pending[j] {
                if !alive[i] { ok = false; break }
                i += 1; j += 1
            } else if i == ids.count {
                arrived.append(pending[j]); j += 1
            } else {
                ok = false; break
            }
        }
        if ok {
            while i < ids.count { if alive[i] { alive[i] = false; dead += 1 }; i += 1 }
        }
        if !ok || dead * 4 > max(64, ids.count) {
            ids = []
            alive = []
            dead = 0
            storage.removeAll(keepingCapacity: pending.count)
            for id in pending { append(id, occurrences) }
            return
        }
        for id in arrived { append(id, occurrences) }
    }

    private mutating func append(_ id: Int64, _ occurrences: [Int64: Occurrence]) {
        ids.append(id)
        if let v = occurrences.vectorOf(id), v.count == d {
            alive.append(true)
            storage.append(v)
        } else {
            // Not usable as a row (should not happen after the dimension check): kept dead.
            alive.append(false)
            dead += 1
            storage.append(nil)
        }
    }

    /// Calls `body(id, row)` for every live row, ids ascending.
    func forEachLive(_ body: (Int64, UnsafePointer<Float>) -> Void) {
        let base = storage.base
        for r in ids.indices where alive[r] { body(ids[r], base + r * d) }
    }

    /// A look-up of rows for ids asked in ascending order. It keeps the rows alive; the pointers
    /// it gives are valid while it is.
    func lookup() -> RowLookup { RowLookup(ids: ids, alive: alive, storage: storage, d: d) }

    struct RowLookup {
        fileprivate let ids: [Int64]
        fileprivate let alive: [Bool]
        fileprivate let storage: RowStorage
        fileprivate let d: Int
        private var i = 0

        fileprivate init(ids: [Int64], alive: [Bool], storage: RowStorage, d: Int) {
            self.ids = ids
            self.alive = alive
            self.storage = storage
            self.d = d
        }

        /// The row of `id`, or nil when it has no live row.
        mutating func row(_ id: Int64) -> UnsafePointer<Float>? {
            while i < ids.count && ids[i] < id { i += 1 }
            guard i < ids.count, ids[i] == id, alive[i] else { return nil }
            return UnsafePointer(storage.base + i * d)
        }
    }
}

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

    func copy() -> RowStorage {
        let c = RowStorage(d: d, capacity: rows)
        c.base.update(from: base, count: rows * d)
        c.rows = rows
        return c
    }

    func removeAll(keepingCapacity n: Int) {
        rows = 0
        reserve(n)
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
