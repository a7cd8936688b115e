import LinearAlgebra
import Testing
@testable import Grouping

/// `RowCodes.upperBounds` is what lets `PendingIndex.reachable` skip the exact product: it must never
/// fall below x · q, for unit and non-unit rows, zero rows, any dimension, and in copies that grew
/// apart from the rows they were copied from.
@Suite struct RowCodesTests {
    struct Rng {
        var state: UInt64
        mutating func next() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int64(bitPattern: state >> 11) % 2_000_001 - 1_000_000) / 1_000_000
        }
        mutating func vector(_ d: Int) -> [Float] { (0..<d).map { _ in next() } }
    }

    static func check(_ codes: RowCodes, _ rows: [[Float]], _ q: [Float]) -> (violations: Int, maxGap: Float) {
        let upper = q.withUnsafeBufferPointer { codes.upperBounds($0.baseAddress!) }
        #expect(upper.count == rows.count)
        var violations = 0
        var gap: Float = 0
        for (r, x) in rows.enumerated() {
            let exact = Double(zip(x, q).reduce(0.0) { $0 + Double($1.0) * Double($1.1) })
            if Double(upper[r]) < exact { violations += 1 }
            // (Relative to the row's norm: rows here are up to about 34 long.)
            let norm = x.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
            gap = max(gap, (upper[r] - Float(exact)) / max(norm, 1))
        }
        return (violations, gap)
    }

    @Test(arguments: [3, 16, 384, 389])
    func boundsNeverFallBelowTheProduct(d: Int) {
        var rng = Rng(state: UInt64(d))
        let codes = RowCodes(d: d)
        var rows: [[Float]] = []
        for i in 0..<70 {
            let v = rng.vector(d)
            let row = i % 9 == 0 ? [Float](repeating: 0, count: d) : (i % 2 == 0 ? Vectors.normalized(v) : v.map { $0 * 3 })
            rows.append(row)
            row.withUnsafeBufferPointer { codes.append($0.baseAddress!) }
        }
        for _ in 0..<5 {
            let q = Vectors.normalized(rng.vector(d))
            let (violations, gap) = Self.check(codes, rows, q)
            #expect(violations == 0)
            // Tight enough to be worth it: the int8 error of a row is about 1 % of its norm.
            #expect(gap < 0.03)
        }
        // A copy of the first 40 rows grows on its own; the original keeps its 70.
        let copy = codes.copy(rows: 40)
        var grown = Array(rows[0..<40])
        for _ in 0..<30 {
            let v = Vectors.normalized(rng.vector(d))
            grown.append(v)
            v.withUnsafeBufferPointer { copy.append($0.baseAddress!) }
        }
        let q = Vectors.normalized(rng.vector(d))
        #expect(Self.check(copy, grown, q).violations == 0)
        #expect(Self.check(codes, rows, q).violations == 0)
    }

    /// Unit rows and a unit query: the bound is within a few hundredths of the product, so that a
    /// placement's exact products are few.
    @Test func boundsOfUnitRowsAreClose() {
        var rng = Rng(state: 9)
        let codes = RowCodes(d: 384)
        var rows: [[Float]] = []
        for _ in 0..<200 {
            let v = Vectors.normalized(rng.vector(384))
            rows.append(v)
            v.withUnsafeBufferPointer { codes.append($0.baseAddress!) }
        }
        let (violations, gap) = Self.check(codes, rows, Vectors.normalized(rng.vector(384)))
        #expect(violations == 0 && gap < 0.03)
    }
}
