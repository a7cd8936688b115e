import CKernels

/// One owner's vectors of one index version: a contiguous row-major [count × d] float32 matrix,
/// unit-normalised, with the record rowid of each slot, and the same rows as IEEE half floats for the
/// fast first pass of single-query search. Deletes swap the last row in (O(d)).
struct OwnerBlock {
    let dimension: Int
    var vectors: [Float] = []
    var half: [UInt16] = []
    var rowids: [Int64] = []
    var slotOf: [Int64: Int] = [:]

    init(dimension: Int) { self.dimension = dimension }

    var count: Int { rowids.count }

    /// Inserts or replaces the vector of `rowid` (already normalised).
    mutating func put(rowid: Int64, unit v: UnsafeBufferPointer<Float>) {
        precondition(v.count == dimension, "dimension mismatch")
        var h = [UInt16](repeating: 0, count: dimension)
        h.withUnsafeMutableBufferPointer { kindred_f32_to_f16(v.baseAddress!, $0.baseAddress!, dimension) }
        if let slot = slotOf[rowid] {
            vectors.withUnsafeMutableBufferPointer { buf in
                for j in 0..<dimension { buf[slot * dimension + j] = v[j] }
            }
            half.replaceSubrange((slot * dimension)..<((slot + 1) * dimension), with: h)
        } else {
            slotOf[rowid] = rowids.count
            rowids.append(rowid)
            vectors.append(contentsOf: v)
            half.append(contentsOf: h)
        }
    }

    /// Appends many new rows at once (`units` holds rowids.count unit vectors back to back).
    mutating func appendMany(rowids new: [Int64], units: consuming [Float]) {
        precondition(units.count == new.count * dimension, "size mismatch")
        let first = rowids.count
        slotOf.reserveCapacity(first + new.count)
        for (i, r) in new.enumerated() { slotOf[r] = first + i }
        rowids.append(contentsOf: new)
        let start = half.count
        let count = new.count * dimension
        if vectors.isEmpty { vectors = units } else { vectors.append(contentsOf: units) }
        half.append(contentsOf: repeatElement(0, count: count))
        vectors.withUnsafeBufferPointer { u in
            half.withUnsafeMutableBufferPointer { h in kindred_f32_to_f16(u.baseAddress! + first * dimension, h.baseAddress! + start, count) }
        }
    }

    /// Removes `rowid`; returns whether it was present.
    @discardableResult
    mutating func remove(rowid: Int64) -> Bool {
        guard let slot = slotOf.removeValue(forKey: rowid) else { return false }
        let last = rowids.count - 1
        if slot != last {
            let moved = rowids[last]
            rowids[slot] = moved
            slotOf[moved] = slot
            vectors.withUnsafeMutableBufferPointer { buf in
                for j in 0..<dimension { buf[slot * dimension + j] = buf[last * dimension + j] }
            }
            half.withUnsafeMutableBufferPointer { buf in
                for j in 0..<dimension { buf[slot * dimension + j] = buf[last * dimension + j] }
            }
        }
        rowids.removeLast()
        vectors.removeLast(dimension)
        half.removeLast(dimension)
        return true
    }

    func vector(rowid: Int64) -> [Float]? {
        guard let slot = slotOf[rowid] else { return nil }
        return Array(vectors[(slot * dimension)..<((slot + 1) * dimension)])
    }

    /// A slot mask from a set of allowed rowids.
    func mask(allowing allowed: Set<Int64>) -> [Bool] {
        var m = [Bool](repeating: false, count: count)
        for r in allowed { if let s = slotOf[r] { m[s] = true } }
        return m
    }
}
