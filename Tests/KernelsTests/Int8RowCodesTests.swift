import Kernels
import Testing

/// The int8 row codes and the scan kernels over them: the kernels agree with plain arithmetic on the
/// decoded codes (layout and padding), and appends, replacements and removals keep whole groups with
/// zero codes past the last row.
@Suite("int8 row codes")
struct Int8RowCodesTests {
    static func rows(_ n: Int, d: Int, seed: UInt64) -> [Float] { MatmulKernelTests.values(n * d, seed: seed) }

    /// The decoded codes of every slot, and the plain sums of a query's bytes times them.
    static func plainDots(_ c: Int8RowCodes, _ qu: [UInt8]) -> [Int32] {
        (0..<(c.groups * 16)).map { slot in zip(qu, c.decode(slot: slot)).reduce(Int32(0)) { $0 + Int32($1.0) * Int32($1.1) } }
    }

    @Test(arguments: [16, 7, 388])
    func scanKernelsEqualPlainArithmetic(d: Int) {
        var c = Int8RowCodes(dimension: d)
        let n = 37, x = Self.rows(n, d: d, seed: UInt64(d) + 50)
        x.withUnsafeBufferPointer { c.append(contentsOf: $0.baseAddress!, count: n) }
        let dp = c.padded
        #expect(dp == (d + 3) / 4 * 4 && c.count == n && c.groups == 3)
        var s: UInt64 = 99
        let qu = (0..<dp).map { _ in s = s &* 6364136223846793005 &+ 1442695040888963407; return UInt8(truncatingIfNeeded: s >> 33) }
        let qv = qu.reversed().map { $0 }
        let plain = Self.plainDots(c, qu), plainV = Self.plainDots(c, qv)
        var out = [Int32](repeating: 0, count: c.groups * 16), first = out, second = out
        var many = [Int32](repeating: 0, count: 3 * c.groups * 16)
        c.withView { v in
            Int8Scan.dots(qu, codes: v.codes, groups: v.groups, padded: dp, into: &out)
            Int8Scan.dots2(qu, qv, codes: v.codes, groups: v.groups, padded: dp, into: &first, &second)
            Int8Scan.dotsMany(qu + qv + qu, queries: 3, codes: v.codes, groups: v.groups, padded: dp, into: &many)
        }
        #expect(out == plain && first == plain && second == plainV)
        #expect(Array(many[0..<48]) == plain && Array(many[48..<96]) == plainV && Array(many[96...]) == plain)
        for slot in 0..<(c.groups * 16) {
            let row = c.decode(slot: slot)
            #expect(row.reduce(Int32(0)) { $0 + Int32($1) } == c.sums[slot])
            // Padding and slots past the last row hold zero codes.
            #expect(row[d...].allSatisfy { $0 == 0 })
            if slot >= n { #expect(row.allSatisfy { $0 == 0 } && c.scales[slot] == 0) }
        }
    }

    /// Each row's codes reconstruct it within the error bound stored for it.
    @Test func codesReconstructRowsWithinTheirBound() {
        let d = 45, n = 20
        var c = Int8RowCodes(dimension: d)
        let x = Self.rows(n, d: d, seed: 4)
        for i in 0..<n { x.withUnsafeBufferPointer { c.append($0.baseAddress! + i * d) } }
        for i in 0..<n {
            let row = c.decode(slot: i)
            var err = 0.0
            for j in 0..<d { err += pow2(Double(x[i * d + j]) - Double(c.scales[i]) * Double(row[j])) }
            #expect(err.squareRoot() <= Double(c.errors[i]))
            #expect(c.errors[i] <= c.scales[i] * Float(d).squareRoot())
        }
    }

    /// Removing moves the last row into the gap; truncating zeroes what follows and gives back whole groups.
    @Test func removalsAndTruncationKeepWholeGroups() {
        let d = 12
        var c = Int8RowCodes(dimension: d)
        let x = Self.rows(40, d: d, seed: 8)
        x.withUnsafeBufferPointer { c.append(contentsOf: $0.baseAddress!, count: 40) }
        let lastCodes = c.decode(slot: 39), lastScale = c.scales[39]
        let copy = c
        c.removeMovingLast(slot: 5)
        #expect(c.count == 39 && c.decode(slot: 5) == lastCodes && c.scales[5] == lastScale)
        #expect(c.decode(slot: 39).allSatisfy { $0 == 0 } && c.scales[39] == 0 && c.sums[39] == 0 && c.errors[39] == 0)
        // The copy taken before is unchanged.
        #expect(copy.count == 40 && copy.decode(slot: 39) == lastCodes && copy.decode(slot: 5) != lastCodes)
        c.truncate(to: 17)
        #expect(c.count == 17 && c.groups == 2 && c.scales.count == 32 && c.codes.count == 32 * c.padded)
        for slot in 17..<32 { #expect(c.decode(slot: slot).allSatisfy { $0 == 0 } && c.scales[slot] == 0) }
        x.withUnsafeBufferPointer { c.replace(slot: 0, with: $0.baseAddress! + 39 * d) }
        #expect(c.decode(slot: 0) == lastCodes)
        c.truncate(to: 0)
        #expect(c.count == 0 && c.groups == 0 && c.codes.count == 0)
    }

    /// Arrays read back are taken only when their sizes fit the row count in whole groups.
    @Test func restoredCodesMustFitTheirCount() {
        let d = 8
        var c = Int8RowCodes(dimension: d)
        let x = Self.rows(20, d: d, seed: 2)
        x.withUnsafeBufferPointer { c.append(contentsOf: $0.baseAddress!, count: 20) }
        let back = Int8RowCodes(dimension: d, count: 20, scales: c.scales, errors: c.errors, sums: c.sums, codes: c.codes)
        #expect(back?.decode(slot: 19) == c.decode(slot: 19))
        #expect(Int8RowCodes(dimension: d, count: 33, scales: c.scales, errors: c.errors, sums: c.sums, codes: c.codes) == nil)
        #expect(Int8RowCodes(dimension: d, count: 16, scales: c.scales, errors: c.errors, sums: c.sums, codes: c.codes) == nil)
        #expect(Int8RowCodes(dimension: d, count: 20, scales: c.scales, errors: Array(c.errors.dropLast()), sums: c.sums, codes: c.codes) == nil)
        #expect(Int8RowCodes(dimension: 12, count: 20, scales: c.scales, errors: c.errors, sums: c.sums, codes: c.codes) == nil)
    }

    /// A query's two levels reconstruct it within the residual bound, the first level alone within its own.
    @Test func queryLevelsStayWithinTheirBounds() {
        let d = 30
        let q = Self.rows(1, d: d, seed: 12)
        let coded = Int8Query(q, dimension: d)
        var both = 0.0, first = 0.0, firstNorm = 0.0
        for j in 0..<d {
            let u = Double(coded.codes[j]) - 128, v = Double(coded.codes[coded.padded + j]) - 128
            let one = Double(coded.scale) * u
            first += pow2(Double(q[j]) - one)
            both += pow2(Double(q[j]) - one - Double(coded.scale2) * v)
            firstNorm += one * one
        }
        #expect(both.squareRoot() <= coded.residual && first.squareRoot() <= coded.firstResidual)
        #expect(firstNorm.squareRoot() <= coded.firstNorm && coded.residual < coded.firstResidual)
    }
}

private func pow2(_ x: Double) -> Double { x * x }
