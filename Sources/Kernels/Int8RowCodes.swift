internal import CKernels

/// Rows coded as int8 (`kindred_i8_encode`): row x ≈ scale · c with c ∈ [−127, 127]^d, padded with
/// zeros to a multiple of 4; per row its scale, an upper bound of the coding error's norm ‖x − scale·c‖
/// and Σ c. Codes live in groups of 16 rows (in a group, each step of 4 dimensions holds 64 bytes,
/// row l's four codes at byte 4·l), and every per-row array holds whole groups: slots past `count`
/// are zero. Value semantics (the codes are shared until one copy changes).
public struct Int8RowCodes {
    public let dimension: Int
    /// `dimension` rounded up to a multiple of 4: the codes' width.
    public let padded: Int
    public private(set) var count = 0
    /// 16 · groups · padded codes.
    public private(set) var codes = CodeBuffer()
    public private(set) var scales: [Float] = []
    public private(set) var errors: [Float] = []
    public private(set) var sums: [Int32] = []

    /// The codes' width for rows of `dimension` values.
    public static func padded(_ dimension: Int) -> Int { (dimension + 3) / 4 * 4 }

    public init(dimension: Int) {
        self.dimension = dimension
        padded = Self.padded(dimension)
    }

    /// Codes read back as `scales`, `errors`, `sums` and `codes` held them; nil when their sizes do not
    /// fit `count` rows of whole groups.
    public init?(dimension: Int, count: Int, scales: [Float], errors: [Float], sums: [Int32], codes: CodeBuffer) {
        self.init(dimension: dimension)
        let slots = scales.count
        guard count >= 0, slots % 16 == 0, count <= slots, slots < count + 16,
              errors.count == slots, sums.count == slots, codes.count == slots * padded else { return nil }
        self.count = count
        self.scales = scales
        self.errors = errors
        self.sums = sums
        self.codes = codes
    }

    /// Groups of 16 slots allocated.
    public var groups: Int { scales.count / 16 }

    /// Appends the `dimension` values at `v` as a new last row.
    public mutating func append(_ v: UnsafePointer<Float>) {
        reserve(rows: count + 1)
        count += 1
        encode(v, slot: count - 1)
    }

    /// Appends `n` rows stored back to back at `rows`.
    public mutating func append(contentsOf rows: UnsafePointer<Float>, count n: Int) {
        let first = count
        reserve(rows: first + n)
        count += n
        for i in 0..<n { encode(rows + i * dimension, slot: first + i) }
    }

    /// Codes the values at `v` over the row in `slot`.
    public mutating func replace(slot: Int, with v: UnsafePointer<Float>) {
        precondition(slot >= 0 && slot < count, "no row in slot \(slot)")
        encode(v, slot: slot)
    }

    /// Removes the row in `slot`; the last row moves into it.
    public mutating func removeMovingLast(slot: Int) {
        precondition(slot >= 0 && slot < count, "no row in slot \(slot)")
        let last = count - 1
        if slot != last {
            let dp = padded
            codes.withUnsafeMutableBufferPointer { kindred_i8_move($0.baseAddress!, last, slot, dp) }
            scales[slot] = scales[last]
            errors[slot] = errors[last]
            sums[slot] = sums[last]
        }
        truncate(to: last)
    }

    /// Keeps the first `n` rows; the slots after them are zeroed and whole groups past them given back.
    public mutating func truncate(to n: Int) {
        precondition(n >= 0 && n <= count, "truncating to \(n) of \(count) rows")
        guard n < count else { return }
        let dp = padded, end = min(count, groups * 16)
        codes.withUnsafeMutableBufferPointer { c in
            for slot in n..<end { kindred_i8_clear(c.baseAddress!, slot, dp) }
        }
        for slot in n..<end {
            scales[slot] = 0
            errors[slot] = 0
            sums[slot] = 0
        }
        count = n
        let drop = groups - (n + 15) / 16
        if drop > 0 {
            codes.removeLast(drop * 16 * dp)
            scales.removeLast(drop * 16)
            errors.removeLast(drop * 16)
            sums.removeLast(drop * 16)
        }
    }

    /// The codes of `slot` in plain order (`padded` values).
    public func decode(slot: Int) -> [Int8] {
        precondition(slot >= 0 && slot < groups * 16, "no slot \(slot)")
        var row = [Int8](repeating: 0, count: padded)
        codes.withUnsafeBufferPointer { kindred_i8_decode($0.baseAddress!, slot, padded, &row) }
        return row
    }

    /// Calls `body` with views of the arrays (valid only inside `body`; at least one row is held).
    public func withView<R>(_ body: (Int8RowView) throws -> R) rethrows -> R {
        precondition(count > 0, "no rows to view")
        return try codes.withUnsafeBufferPointer { c in
            try scales.withUnsafeBufferPointer { s in
                try sums.withUnsafeBufferPointer { m in
                    try errors.withUnsafeBufferPointer { e in
                        try body(Int8RowView(codes: c.baseAddress!, scales: s.baseAddress!, sums: m.baseAddress!, errors: e.baseAddress!,
                                             groups: s.count / 16, padded: padded))
                    }
                }
            }
        }
    }

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
}

/// Raw views of an `Int8RowCodes`' arrays for the length of one scan: taken once, so that the scan's
/// inner loops do no reference counting.
public struct Int8RowView {
    public let codes: UnsafePointer<Int8>
    public let scales: UnsafePointer<Float>
    public let sums: UnsafePointer<Int32>
    public let errors: UnsafePointer<Float>
    public let groups: Int
    public let padded: Int
}
