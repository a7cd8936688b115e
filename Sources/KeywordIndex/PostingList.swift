/// One term's postings in one owner's records: document slots in increasing order with the term's
/// frequency in each, and bounds for its best possible BM25 contribution (the largest frequency and
/// the shortest document seen; after removals they may be loose, never too small).
struct PostingList {
    var slots: [Int32] = []
    var frequencies: [Int32] = []
    var maxFrequency: Int32 = 0
    var minLength: Int32 = .max

    var count: Int { slots.count }

    mutating func append(slot: Int32, frequency: Int32, length: Int32) {
        slots.append(slot)
        frequencies.append(frequency)
        maxFrequency = max(maxFrequency, frequency)
        minLength = min(minLength, length)
    }

    /// The first position at or after `from` whose slot is ≥ `slot` (galloping, then binary search).
    @inline(__always)
    func seek(_ slot: Int32, from: Int) -> Int {
        var lo = from
        if lo >= slots.count || slots[lo] >= slot { return lo }
        var step = 1
        var hi = lo + 1
        while hi < slots.count && slots[hi] < slot {
            lo = hi
            step <<= 1
            hi = lo + step
        }
        hi = min(hi, slots.count)
        // slots[lo] < slot, and slots[hi] >= slot or hi == count
        var l = lo + 1, h = hi
        while l < h {
            let m = (l + h) >> 1
            if slots[m] < slot { l = m + 1 } else { h = m }
        }
        return l
    }
}
