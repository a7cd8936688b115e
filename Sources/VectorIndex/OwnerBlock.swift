import CKernels

/// One owner's rows of one index version as int8 codes (`kindred_i8_encode`): per row a scale, an
/// upper bound of the coding error's norm and the codes' sum, with the record rowid of each slot.
/// The float32 rows are not kept here (see `ExactRows`). Deletes move the last row in (O(d)).
struct OwnerBlock {
    let dimension: Int
    /// The dimension padded to a multiple of 4 (the codes' width).
    let padded: Int
    /// 16 · groups · padded codes (see kernels.h for the layout).
    var codes = CodeBuffer()
    var scales: [Float] = []
    var errors: [Float] = []
    var sums: [Int32] = []
    var rowids: [Int64] = []
    var slotOf: [Int64: Int] = [:]

    init(dimension: Int) {
        self.dimension = dimension
        padded = (dimension + 3) / 4 * 4
    }

    var count: Int { rowids.count }
    /// Groups of 16 slots allocated.
    var groups: Int { scales.count / 16 }

    /// Makes room for `rows` slots (whole groups; new slots are zero).
    private mutating func reserve(rows: Int) {
        let need = (rows + 15) / 16
        guard need > groups else { return }
        let add = need - groups
        codes.appendZeros(add * 16 * padded)
        scales.append(contentsOf: repeatElement(0, count: add * 16))
        errors.append(contentsOf: repeatElement(0, count: add * 16))
        sums.append(contentsOf: repeatElement(0, count: add * 16))
    }

    private mutating func encode(_ v: UnsafePointer<Float>, slot: Int) {
        let (d, dp) = (dimension, padded)
        codes.withUnsafeMutableBufferPointer { c in
            scales.withUnsafeMutableBufferPointer { s in
                errors.withUnsafeMutableBufferPointer { e in
                    sums.withUnsafeMutableBufferPointer { m in
                        kindred_i8_encode(v, d, dp, c.baseAddress!, slot, s.baseAddress! + slot, e.baseAddress! + slot, m.baseAddress! + slot)
                    }
                }
            }
        }
    }

    /// Inserts or replaces the codes of `rowid` (`v` already normalised).
    mutating func put(rowid: Int64, unit v: UnsafeBufferPointer<Float>) {
        precondition(v.count == dimension, "dimension mismatch")
        if let slot = slotOf[rowid] {
            encode(v.baseAddress!, slot: slot)
        } else {
            let slot = rowids.count
            reserve(rows: slot + 1)
            slotOf[rowid] = slot
            rowids.append(rowid)
            encode(v.baseAddress!, slot: slot)
        }
    }

    /// Appends many new rows at once (`units` holds `new.count` unit vectors back to back).
    mutating func appendMany(rowids new: [Int64], units: UnsafeBufferPointer<Float>) {
        precondition(units.count == new.count * dimension, "size mismatch")
        let first = rowids.count
        reserve(rows: first + new.count)
        slotOf.reserveCapacity(first + new.count)
        for (i, r) in new.enumerated() { slotOf[r] = first + i }
        rowids.append(contentsOf: new)
        for i in 0..<new.count { encode(units.baseAddress! + i * dimension, slot: first + i) }
    }

    /// Removes `rowid`; returns whether it was present.
    @discardableResult
    mutating func remove(rowid: Int64) -> Bool {
        guard let slot = slotOf.removeValue(forKey: rowid) else { return false }
        let last = rowids.count - 1
        let dp = padded
        codes.withUnsafeMutableBufferPointer { c in
            if slot != last { kindred_i8_move(c.baseAddress!, last, slot, dp) }
            kindred_i8_clear(c.baseAddress!, last, dp)
        }
        if slot != last {
            let moved = rowids[last]
            rowids[slot] = moved
            slotOf[moved] = slot
            scales[slot] = scales[last]
            errors[slot] = errors[last]
            sums[slot] = sums[last]
        }
        scales[last] = 0
        errors[last] = 0
        sums[last] = 0
        rowids.removeLast()
        // Give back whole groups that no longer hold a row.
        let keep = (rowids.count + 15) / 16
        let drop = groups - keep
        if drop > 0 {
            codes.removeLast(drop * 16 * dp)
            scales.removeLast(drop * 16)
            errors.removeLast(drop * 16)
            sums.removeLast(drop * 16)
        }
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
    let codes: UnsafePointer<Int8>
    let scales: UnsafePointer<Float>
    let sums: UnsafePointer<Int32>
    let errors: UnsafePointer<Float>
    let rowids: UnsafePointer<Int64>
    let padded: Int
}

extension OwnerBlock {
    /// Calls `body` with views of the block's arrays (valid only inside `body`; the block holds a row).
    func withView<R>(_ body: (BlockView) -> R) -> R {
        precondition(count > 0, "an empty block has no view")
        return codes.withUnsafeBufferPointer { c in
            scales.withUnsafeBufferPointer { s in
                sums.withUnsafeBufferPointer { m in
                    errors.withUnsafeBufferPointer { e in
                        rowids.withUnsafeBufferPointer { r in
                            body(BlockView(codes: c.baseAddress!, scales: s.baseAddress!, sums: m.baseAddress!, errors: e.baseAddress!,
                                           rowids: r.baseAddress!, padded: padded))
                        }
                    }
                }
            }
        }
    }
}
