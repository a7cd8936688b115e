internal import CKernels

/// The int8 scan over row codes laid out as `Int8RowCodes` keeps them (`int8.c`: AVX-512 VNNI where
/// the CPU has it, portable C otherwise). Query codes are unsigned bytes (`Int8Query`); every integer
/// sum is exact.
public enum Int8Scan {
    /// out[r] = Σⱼ qu[j] · c[r][j] for the 16 · groups rows of `codes`.
    public static func dots(_ qu: UnsafePointer<UInt8>, codes: UnsafePointer<Int8>, groups: Int, padded: Int, into out: UnsafeMutablePointer<Int32>) {
        kindred_i8_dots(qu, codes, groups, padded, out)
    }

    /// The same for `queries` query codes back to back (`padded` bytes each): out[i · 16 · groups + r].
    public static func dotsMany(_ qu: UnsafePointer<UInt8>, queries: Int, codes: UnsafePointer<Int8>, groups: Int, padded: Int,
                                into out: UnsafeMutablePointer<Int32>) {
        kindred_i8_dots_many(qu, queries, codes, groups, padded, out)
    }

    /// `dots` for the two query codes qu and qv in one pass over the codes.
    public static func dots2(_ qu: UnsafePointer<UInt8>, _ qv: UnsafePointer<UInt8>, codes: UnsafePointer<Int8>, groups: Int, padded: Int,
                             into out: UnsafeMutablePointer<Int32>, _ out2: UnsafeMutablePointer<Int32>) {
        kindred_i8_dots2(qu, qv, codes, groups, padded, out, out2)
    }

    /// What the bounds need of a query besides its codes: its two scales, an upper bound of ‖q̂‖ and
    /// the slack added to every bound (the residual's norm plus rounding).
    public struct Figures: Sendable {
        public var scale: Float, scale2: Float, norm: Float, slack: Float
        public init(scale: Float, scale2: Float, norm: Float, slack: Float) {
            self.scale = scale
            self.scale2 = scale2
            self.norm = norm
            self.slack = slack
        }
    }

    /// Where a pass writes the rows it keeps: slot offsets and their upper and lower bounds.
    public struct Kept {
        public let index: UnsafeMutablePointer<UInt32>, upper: UnsafeMutablePointer<Float>, lower: UnsafeMutablePointer<Float>
        public init(index: UnsafeMutablePointer<UInt32>, upper: UnsafeMutablePointer<Float>, lower: UnsafeMutablePointer<Float>) {
            self.index = index
            self.upper = upper
            self.lower = lower
        }
    }

    /// For `count` rows from `first` of `rows`, whose integer dots with both query levels are `dots`
    /// and `dots2`: approx = scale[r] · (f.scale · (dots[r] − 128 · sum[r]) + f.scale2 · (dots2[r] − 128 · sum[r]))
    /// and bound = f.norm · error[r] + f.slack; keeps the rows whose approx + bound ≥ floor (offset from
    /// `first`, approx + bound, approx − bound); returns how many.
    public static func bounds(dots: UnsafePointer<Int32>, _ dots2: UnsafePointer<Int32>, count: Int, rows: Int8RowView, first: Int,
                              query f: Figures, floor: Float, into kept: Kept) -> Int {
        kindred_i8_bounds(dots, dots2, count, rows.scales + first, rows.sums + first, rows.errors + first, f.scale, f.scale2, f.norm, f.slack,
                          floor, kept.index, kept.upper, kept.lower)
    }

    /// The second level for the `count` rows a first-level `bounds` pass kept (in `kept`, from slot
    /// `first`; `dots` the first level's dots from that slot): overwrites their bounds with those a
    /// pass with both levels gives them.
    public static func refine(_ qv: UnsafePointer<UInt8>, rows: Int8RowView, first: Int, dots: UnsafePointer<Int32>, count: Int,
                              query f: Figures, kept: Kept) {
        kindred_i8_refine(qv, rows.codes, rows.padded, first, dots, count, kept.index, rows.scales + first, rows.sums + first, rows.errors + first,
                          f.scale, f.scale2, f.norm, f.slack, kept.upper, kept.lower)
    }

    /// Whether the scan uses AVX-512 VNNI.
    public static var vectorized: Bool { kindred_i8_vectorized() != 0 }
}
