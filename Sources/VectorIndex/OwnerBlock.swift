import Kernels

/// One owner's rows of one index version as int8 codes (`Int8RowCodes`), with the record rowid of
/// each slot. The float32 rows are not kept here (see `ExactRows`). Deletes move the last row in (O(d)).
struct OwnerBlock {
    var codes: Int8RowCodes
    var rowids: [Int64] = []
    var slotOf: [Int64: Int] = [:]

    init(dimension: Int) { codes = Int8RowCodes(dimension: dimension) }

    /// A block read back: `codes` holds one row per rowid, in order.
    init(codes: Int8RowCodes, rowids: [Int64]) {
        precondition(codes.count == rowids.count, "one row of codes per rowid")
        self.codes = codes
        self.rowids = rowids
    }

    var count: Int { rowids.count }
    var dimension: Int { codes.dimension }
    /// The dimension padded to a multiple of 4 (the codes' width).
    var padded: Int { codes.padded }
    /// Groups of 16 slots allocated.
    var groups: Int { codes.groups }

    /// Inserts or replaces the codes of `rowid` (`v` already normalised).
    mutating func put(rowid: Int64, unit v: UnsafeBufferPointer<Float>) {
        precondition(v.count == dimension, "dimension mismatch")
        if let slot = slotOf[rowid] {
            codes.replace(slot: slot, with: v.baseAddress!)
        } else {
            slotOf[rowid] = rowids.count
            rowids.append(rowid)
            codes.append(v.baseAddress!)
        }
    }

    /// Appends many new rows at once (`units` holds `new.count` unit vectors back to back).
    mutating func appendMany(rowids new: [Int64], units: UnsafeBufferPointer<Float>) {
        precondition(units.count == new.count * dimension, "size mismatch")
        let first = rowids.count
        slotOf.reserveCapacity(first + new.count)
        for (i, r) in new.enumerated() { slotOf[r] = first + i }
        rowids.append(contentsOf: new)
        if let base = units.baseAddress { codes.append(contentsOf: base, count: new.count) }
    }

    /// Removes `rowid`; returns whether it was present.
    @discardableResult
    mutating func remove(rowid: Int64) -> Bool {
        guard let slot = slotOf.removeValue(forKey: rowid) else { return false }
        let last = rowids.count - 1
        codes.removeMovingLast(slot: slot)
        if slot != last {
            let moved = rowids[last]
            rowids[slot] = moved
            slotOf[moved] = slot
        }
        rowids.removeLast()
        return true
    }

    /// A slot mask from a set of allowed rowids.
    func mask(allowing allowed: Set<Int64>) -> [Bool] {
        var m = [Bool](repeating: false, count: count)
        for r in allowed { if let s = slotOf[r] { m[s] = true } }
        return m
    }
}

/// Raw views of one block's arrays for the length of one scan: taken once, so that the scan's inner
/// loops do no reference counting.
struct BlockView {
    let rows: Int8RowView
    let rowids: UnsafePointer<Int64>
}

extension OwnerBlock {
    /// Calls `body` with views of the block's arrays (valid only inside `body`; the block holds a row).
    func withView<R>(_ body: (BlockView) -> R) -> R {
        precondition(count > 0, "an empty block has no view")
        return codes.withView { c in
            rowids.withUnsafeBufferPointer { r in body(BlockView(rows: c, rowids: r.baseAddress!)) }
        }
    }
}
