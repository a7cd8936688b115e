/// The arrays one scan works in — the coded query, the first pass's dot products, the slot mask —
/// with raw pointers to all of them taken in one place (`withPointers`), so that a scan reads as the
/// rule it follows rather than as nested `withUnsafe…` calls. The pointers are valid only inside
/// `withPointers`' body.
struct ScanArrays {
    /// One query's codes, both levels back to back (`search`), or every query's first level (`searchBatch`).
    var query: [UInt8]
    /// Every query's second level, back to back (`searchBatch`); empty for one query.
    var second: [UInt8] = []
    /// First-level dot products per slot (16 per group).
    var dots: [Int32]
    /// Second-level dot products per slot, when the first pass computes them (`search`); else empty.
    var dots2: [Int32] = []
    /// Slots a search may return (nil: all).
    var mask: [Bool]?

    struct Pointers {
        let query: UnsafePointer<UInt8>
        let second: UnsafePointer<UInt8>?
        let dots: UnsafeMutablePointer<Int32>
        let dots2: UnsafeMutablePointer<Int32>?
        let mask: UnsafePointer<Bool>?
    }

    mutating func withPointers<R>(_ body: (Pointers) -> R) -> R {
        precondition(!query.isEmpty && !dots.isEmpty, "a scan has a query and at least one group of slots")
        return query.withUnsafeBufferPointer { q in
            second.withUnsafeBufferPointer { s in
                dots.withUnsafeMutableBufferPointer { d in
                    dots2.withUnsafeMutableBufferPointer { d2 in
                        mask.withOptionalPointer { m in
                            body(Pointers(query: q.baseAddress!, second: s.isEmpty ? nil : s.baseAddress,
                                          dots: d.baseAddress!, dots2: d2.isEmpty ? nil : d2.baseAddress, mask: m))
                        }
                    }
                }
            }
        }
    }
}

extension Optional where Wrapped == [Bool] {
    /// Calls `body` with a pointer to the array's elements, or nil when there is no array.
    func withOptionalPointer<R>(_ body: (UnsafePointer<Bool>?) -> R) -> R {
        switch self {
        case .none: return body(nil)
        case .some(let a): return a.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}
