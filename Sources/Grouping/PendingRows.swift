/// The vectors of a scope's pending occurrences as the rows of one contiguous matrix, ids
/// ascending, kept across calls in the `EngineCache`: re-checking thousands of certificates then
/// streams through it instead of looking every occurrence up. Occurrences that leave are marked
/// dead; new ones above every id are appended; anything else rebuilds it.
struct PendingRows {
    private(set) var ids: [Int64] = []
    private var alive: [Bool] = []
    private var storage: [Float] = []
    private var dead = 0
    let d: Int

    init(d: Int) { self.d = d }

    /// Brings the rows in line with `pending` (the scope's pending ids, ascending).
    mutating func sync(to pending: [Int64], _ occurrences: [Int64: Occurrence]) {
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
            rebuild(pending, occurrences)
            return
        }
        for id in arrived { append(id, occurrences) }
    }

    private mutating func rebuild(_ pending: [Int64], _ occurrences: [Int64: Occurrence]) {
        ids = []
        alive = []
        storage = []
        dead = 0
        storage.reserveCapacity(pending.count * d)
        for id in pending { append(id, occurrences) }
    }

    private mutating func append(_ id: Int64, _ occurrences: [Int64: Occurrence]) {
        guard let v = occurrences.vectorOf(id), v.count == d else {
            // Not usable as a row (should not happen after the dimension check): kept dead.
            ids.append(id); alive.append(false); dead += 1
            storage.append(contentsOf: repeatElement(0, count: d))
            return
        }
        ids.append(id); alive.append(true)
        storage.append(contentsOf: v)
    }

    /// Calls `body(id, row)` for every live row, ids ascending.
    func forEachLive(_ body: (Int64, UnsafePointer<Float>) -> Void) {
        storage.withUnsafeBufferPointer { s in
            for r in ids.indices where alive[r] { body(ids[r], s.baseAddress! + r * d) }
        }
    }

    /// Calls `body` with a look-up of rows for ids asked in ascending order (nil: no live row).
    func withRows<R>(_ body: (inout RowLookup) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { s in
            var lookup = RowLookup(ids: ids, alive: alive, base: s.baseAddress, d: d)
            return try body(&lookup)
        }
    }

    struct RowLookup {
        fileprivate let ids: [Int64]
        fileprivate let alive: [Bool]
        fileprivate let base: UnsafePointer<Float>?
        fileprivate let d: Int
        private var i = 0

        fileprivate init(ids: [Int64], alive: [Bool], base: UnsafePointer<Float>?, d: Int) {
            self.ids = ids
            self.alive = alive
            self.base = base
            self.d = d
        }

        mutating func row(_ id: Int64) -> UnsafePointer<Float>? {
            while i < ids.count && ids[i] < id { i += 1 }
            guard i < ids.count, ids[i] == id, alive[i], let base else { return nil }
            return base + i * d
        }
    }
}
