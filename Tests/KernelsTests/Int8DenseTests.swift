import Kernels
import Foundation
import Testing

/// The int8 dense product (`Int8Dense`): the AVX-512 VNNI path gives the same bits as the
/// plain C reference, and both stay within the quantisation bound of the float64 product.
@Suite("int8 dense products")
struct Int8DenseTests {
    struct Packed {
        var codes: [Int8], scale: [Float], sums: [Int32]
        let n: Int, kp: Int
    }

    static func pack(_ w: [Float], n: Int, k: Int) -> Packed {
        let kp = Int8Dense.paddedInputs(k), np = Int8Dense.paddedChannels(n)
        var p = Packed(codes: [Int8](repeating: 0, count: np * kp), scale: [Float](repeating: 0, count: np),
                       sums: [Int32](repeating: 0, count: np), n: n, kp: kp)
        Int8Dense.pack(w, outputs: n, inputs: k, codes: &p.codes, scale: &p.scale, sums: &p.sums)
        return p
    }

    struct Rows {
        var codes: [UInt8], scale: [Float], zero: [Int32], outliers: [Int32], values: [Float], counts: [Int32]

        /// Calls `body` with the kernels' view of the arrays.
        mutating func withRows(_ body: (Int8Dense.Rows) -> Void) {
            codes.withUnsafeMutableBufferPointer { c in
                scale.withUnsafeMutableBufferPointer { s in
                    zero.withUnsafeMutableBufferPointer { z in
                        outliers.withUnsafeMutableBufferPointer { o in
                            values.withUnsafeMutableBufferPointer { v in
                                counts.withUnsafeMutableBufferPointer { n in
                                    body(Int8Dense.Rows(codes: c.baseAddress!, scale: s.baseAddress!, zero: z.baseAddress!, outliers: o.baseAddress!,
                                                        outlierValues: v.baseAddress!, outlierCounts: n.baseAddress!))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    static func quantize(_ x: [Float], m: Int, k: Int, spread: Float = 3, reference: Bool = false) -> Rows {
        let cap = Int8Dense.outlierCapacity(k)
        var r = Rows(codes: [UInt8](repeating: 0, count: Int8Dense.rowsSize(m, inputs: k)), scale: [Float](repeating: 0, count: m),
                     zero: [Int32](repeating: 0, count: m), outliers: [Int32](repeating: 0, count: m * cap), values: [Float](repeating: 0, count: m * cap),
                     counts: [Int32](repeating: 0, count: m))
        r.withRows { Int8Dense.quantize(x, stride: k, rows: m, inputs: k, spread: spread, into: $0, path: reference ? .reference : .dispatched) }
        return r
    }

    /// W transposed (k × n) as half floats, the outliers' weights.
    static func transpose(_ w: [Float], n: Int, k: Int) -> [UInt16] {
        var wt = [UInt16](repeating: 0, count: k * n)
        Int8Dense.packOutlierWeights(w, outputs: n, inputs: k, into: &wt)
        return wt
    }

    /// y (m × n, starting from `start`) += the int8 product, by the dispatched kernel or the reference.
    /// With `bias` (and `residual`, m × n), y starts from bias (residual + bias) instead of `start`.
    static func product(_ q: Rows, m: Int, _ p: Packed, wt: [UInt16], k: Int, start: [Float], reference: Bool, bias: [Float]? = nil,
                        residual: [Float]? = nil) -> [Float] {
        var y = start, q = q
        q.withRows { rows in
            p.codes.withUnsafeBufferPointer { c in
                p.scale.withUnsafeBufferPointer { s in
                    p.sums.withUnsafeBufferPointer { n in
                        wt.withUnsafeBufferPointer { t in
                            let w = Int8Dense.Weights(codes: c.baseAddress!, scale: s.baseAddress!, sums: n.baseAddress!, transposed: t.baseAddress!, stride: p.n)
                            let path: KernelPath = reference ? .reference : .dispatched
                            if let bias {
                                bias.withUnsafeBufferPointer { b in
                                    if let residual {
                                        residual.withUnsafeBufferPointer { r in
                                            Int8Dense.multiply(rows, rows: m, w, outputs: p.n, inputs: k, bias: b.baseAddress!, residual: r.baseAddress!,
                                                               residualStride: p.n, into: &y, stride: p.n, path: path)
                                        }
                                    } else {
                                        Int8Dense.multiply(rows, rows: m, w, outputs: p.n, inputs: k, bias: b.baseAddress!, into: &y, stride: p.n, path: path)
                                    }
                                }
                            } else {
                                Int8Dense.multiply(rows, rows: m, w, outputs: p.n, inputs: k, into: &y, stride: p.n, path: path)
                            }
                        }
                    }
                }
            }
        }
        return y
    }

    /// Values in [-3, 3) with one large value (an outlier) in every other row.
    static func rows(m: Int, k: Int, seed: UInt64) -> [Float] {
        var x = MatmulKernelTests.values(m * k, seed: seed).map { $0 * 3 }
        for i in stride(from: 1, to: m, by: 2) { x[i * k + (7 * i) % k] = k > 9 ? 40 : 3 }
        return x
    }

    static let shapes = [(1, 16, 8), (3, 40, 5), (4, 64, 384), (5, 72, 100), (13, 1152 / 8, 384), (7, 130, 1536), (9, 16, 4), (70, 40, 1100)]

    @Test func vnniIsInUseWhereTheCPUHasIt() throws {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let vnni = cpu.contains("avx512_vnni") && cpu.contains("avx512bw")
        #expect(Int8Dense.vectorized == vnni)
    }

    @Test("the dispatched kernel gives the reference's bits", arguments: shapes.indices)
    func matchesReference(shape: Int) {
        let (m, n, k) = Self.shapes[shape]
        let x = Self.rows(m: m, k: k, seed: UInt64(shape + 1))
        let w = MatmulKernelTests.values(n * k, seed: UInt64(shape + 40)).map { $0 * 0.1 }
        let start = MatmulKernelTests.values(m * n, seed: 9)
        let q = Self.quantize(x, m: m, k: k), p = Self.pack(w, n: n, k: k), wt = Self.transpose(w, n: n, k: k)
        let fast = Self.product(q, m: m, p, wt: wt, k: k, start: start, reference: false)
        let plain = Self.product(q, m: m, p, wt: wt, k: k, start: start, reference: true)
        #expect(fast == plain)
        // The large values are the rows' only outliers.
        for i in 0..<m { #expect(q.counts[i] == (i % 2 == 1 && k > 9 ? 1 : 0), "row \(i)") }
        // With unit scales and no outliers the outputs are the integer sums themselves (exact below 2²⁴).
        var ones = q
        ones.scale = [Float](repeating: 1, count: m)
        ones.counts = [Int32](repeating: 0, count: m)
        var unit = p
        unit.scale = [Float](repeating: 1, count: unit.scale.count)
        let sums = Self.product(ones, m: m, unit, wt: wt, k: k, start: [Float](repeating: 0, count: m * n), reference: false)
        for i in 0..<m {
            for j in 0..<n {
                var exact = 0
                for t in 0..<k {
                    let code = Int(p.codes[(j / 16) * 16 * p.kp + (t / 4) * 64 + (j % 16) * 4 + t % 4])
                    exact += (Int(q.codes[Int8Dense.rowOffset(row: i, input: t, inputs: k)]) - Int(q.zero[i])) * code
                }
                #expect(sums[i * n + j] == Float(exact), "\(m)×\(n)×\(k) at \(i),\(j)")
            }
        }
    }

    @Test("rows are quantised as the reference quantises them", arguments: shapes.indices)
    func quantisedRowsMatchReference(shape: Int) {
        let (m, _, k) = Self.shapes[shape]
        let x = Self.rows(m: m, k: k, seed: UInt64(shape + 3))
        // Also GELU-like rows (a long positive tail, nothing below −0.17) with a wider spread, and rows
        // with more outliers than the arrays hold.
        let gelu = x.map { max($0, -0.17) }, crowded = (0..<(m * k)).map { Float($0 % 5 == 0 ? 50 : 1) }
        for (input, spread) in [(x, Float(3)), (gelu, 5), (crowded, 3)] {
            let fast = Self.quantize(input, m: m, k: k, spread: spread), plain = Self.quantize(input, m: m, k: k, spread: spread, reference: true)
            #expect(fast.codes == plain.codes && fast.scale == plain.scale && fast.zero == plain.zero && fast.counts == plain.counts)
            #expect(fast.outliers == plain.outliers && fast.values == plain.values)
        }
    }

    /// F16C's conversion and the portable one agree on every kind of float: ordinary weights, halves'
    /// subnormals and their rounding ties, overflow to infinity, infinities and NaNs with payloads, in
    /// blocks of 16 and in the ragged edges past them.
    @Test("outlier weights are packed as the reference packs them", arguments: [(1152, 384), (384, 1536), (21, 37), (16, 17), (35, 16)])
    func outlierWeightsMatchReference(n: Int, k: Int) {
        var bits = UInt64(n * 31 + k) &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> UInt64 {
            bits ^= bits << 13; bits ^= bits >> 7; bits ^= bits << 17
            return bits
        }
        let special: [Float] = [0, -0, 1e-8, 2.9802322e-8, 5.9604645e-8, -8.940697e-8, 6.1e-5, 65504, 65519.99, 65520, 1e6, .infinity,
                                -.infinity, .nan, Float(bitPattern: 0x7FA0_1234), Float(bitPattern: 0xFFC0_0001), .leastNonzeroMagnitude]
        let ordinary = MatmulKernelTests.values(n * k, seed: UInt64(k)).map { $0 * 0.1 }
        let w = (0..<(n * k)).map { i -> Float in
            switch i % 3 {
            case 0: return Float(bitPattern: UInt32(truncatingIfNeeded: next()))
            case 1: return special[Int(next() % UInt64(special.count))]
            default: return ordinary[i]
            }
        }
        var fast = [UInt16](repeating: 0, count: n * k), plain = [UInt16](repeating: 1, count: n * k)
        Int8Dense.packOutlierWeights(w, outputs: n, inputs: k, into: &fast)
        Int8Dense.packOutlierWeights(w, outputs: n, inputs: k, into: &plain, path: .reference)
        // Counted, not compared whole: a failure's report of two arrays this long would take minutes.
        let first = fast.indices.first { fast[$0] != plain[$0] }
        #expect(first == nil, "input \((first ?? 0) / n) of channel \((first ?? 0) % n): \(w[((first ?? 0) % n) * k + (first ?? 0) / n].bitPattern)")
        // Transposed: input p of channel j at p · n + j; 1.0 is 0x3C00, 65520 rounds to infinity.
        var ones = [Float](repeating: 0, count: n * k)
        ones[(n - 1) * k + (k - 1)] = 1
        ones[0] = 65520
        Int8Dense.packOutlierWeights(ones, outputs: n, inputs: k, into: &fast)
        #expect(fast[(k - 1) * n + (n - 1)] == 0x3C00 && fast[0] == 0x7C00)
        #expect(fast.filter { $0 != 0 }.count == 2)
    }

    /// Each row is coded over its own range [lo, hi] ∋ 0 (outliers out): codes 0 and 255 are lo and hi,
    /// zero is coded exactly (code z), and every value is within half a step of its code's value.
    @Test func rowsUseTheirWholeRange() {
        let (m, k) = (3, 384)
        var x = MatmulKernelTests.values(m * k, seed: 77).map { max($0 * 2, -0.17) }
        x[5] = 0
        let q = Self.quantize(x, m: m, k: k, spread: 5)
        for i in 0..<m {
            let codes = (0..<k).map { Int(q.codes[Int8Dense.rowOffset(row: i, input: $0, inputs: k)]) }
            let outliers = Set(q.outliers[(i * Int8Dense.outlierCapacity(k))..<(i * Int8Dense.outlierCapacity(k) + Int(q.counts[i]))].map(Int.init))
            #expect(codes.min() == 0 && codes.max() == 255, "row \(i)")
            #expect(q.zero[i] > 0 && q.zero[i] < 64, "row \(i): most of the range above zero")
            for p in 0..<k where !outliers.contains(p) {
                let value = q.scale[i] * Float(codes[p] - Int(q.zero[i]))
                #expect(abs(value - x[i * k + p]) <= q.scale[i] * 0.5001, "row \(i) input \(p)")
            }
        }
        #expect(Int(q.codes[Int8Dense.rowOffset(row: 0, input: 5, inputs: k)]) == Int(q.zero[0]))
    }

    /// A value at 4 times its row's rms is an outlier past a spread of 3 and not past one of 5.
    @Test func spreadDecidesTheOutliers() {
        let k = 64
        var x = [Float](repeating: 1, count: k)
        x[10] = 4.5  // rms ≈ 1.1: 4.5 / 1.1 ≈ 4.1
        #expect(Self.quantize(x, m: 1, k: k, spread: 3).counts == [1])
        #expect(Self.quantize(x, m: 1, k: k, spread: 5).counts == [0])
    }

    /// |Σ x·w − Σ x̂·ŵ| ≤ Σ |x|·sw/2 + Σ |ŵ|·sx/2, with x̂ = sx·qx and ŵ = sw·qw the dequantised values
    /// (an outlier's product, with w as a half float, is off by at most |x|·|w|·2⁻¹¹, well inside its term).
    @Test("within the quantisation bound of the float product", arguments: shapes.indices)
    func withinQuantisationBound(shape: Int) {
        let (m, n, k) = Self.shapes[shape]
        let x = Self.rows(m: m, k: k, seed: UInt64(shape + 7)), w = MatmulKernelTests.values(n * k, seed: UInt64(shape + 70))
        let q = Self.quantize(x, m: m, k: k), p = Self.pack(w, n: n, k: k)
        let y = Self.product(q, m: m, p, wt: Self.transpose(w, n: n, k: k), k: k, start: [Float](repeating: 0.5, count: m * n), reference: false)
        for i in 0..<m {
            for j in 0..<n {
                var exact = 0.0, bound = 0.0, size = 0.0
                for t in 0..<k {
                    let code = Double(p.codes[(j / 16) * 16 * p.kp + (t / 4) * 64 + (j % 16) * 4 + t % 4])
                    exact += Double(x[i * k + t]) * Double(w[j * k + t])
                    size += abs(Double(x[i * k + t]) * Double(w[j * k + t]))
                    bound += abs(Double(x[i * k + t])) * Double(p.scale[j]) / 2 + abs(code * Double(p.scale[j])) * Double(q.scale[i]) / 2
                }
                let got = Double(y[i * n + j]) - 0.5
                #expect(abs(got - exact) <= bound * 1.001 + 1e-5, "\(m)×\(n)×\(k) at \(i),\(j): \(got) vs \(exact)")
                // The bound is far from vacuous: a few percent of the products' size.
                #expect(bound <= 0.05 * size + 1e-3)
            }
        }
    }

    /// A bias start (y unread) and a residual-plus-bias start give the bits of y filled with the same
    /// start first, in both paths.
    @Test("a bias or residual start gives the bits of a filled start", arguments: shapes.indices)
    func startsInTheProduct(shape: Int) {
        let (m, n, k) = Self.shapes[shape]
        let x = Self.rows(m: m, k: k, seed: UInt64(shape + 21))
        let w = MatmulKernelTests.values(n * k, seed: UInt64(shape + 22)).map { $0 * 0.1 }
        let bias = MatmulKernelTests.values(n, seed: 23), residual = MatmulKernelTests.values(m * n, seed: 24)
        let q = Self.quantize(x, m: m, k: k), p = Self.pack(w, n: n, k: k), wt = Self.transpose(w, n: n, k: k)
        let garbage = [Float](repeating: .nan, count: m * n)
        let filled = (0..<(m * n)).map { bias[$0 % n] }, filledResidual = (0..<(m * n)).map { residual[$0] + bias[$0 % n] }
        for reference in [false, true] {
            let expected = Self.product(q, m: m, p, wt: wt, k: k, start: filled, reference: reference)
            let got = Self.product(q, m: m, p, wt: wt, k: k, start: garbage, reference: reference, bias: bias)
            #expect(got.map(\.bitPattern) == expected.map(\.bitPattern))
            let expectedResidual = Self.product(q, m: m, p, wt: wt, k: k, start: filledResidual, reference: reference)
            let gotResidual = Self.product(q, m: m, p, wt: wt, k: k, start: garbage, reference: reference, bias: bias, residual: residual)
            #expect(gotResidual.map(\.bitPattern) == expectedResidual.map(\.bitPattern))
        }
    }

    @Test func zeroRowsAndWeightsGiveZero() {
        let (m, n, k) = (2, 20, 12)
        let q = Self.quantize([Float](repeating: 0, count: m * k), m: m, k: k)
        #expect(q.scale == [0, 0] && q.zero == [0, 0] && q.counts == [0, 0])
        #expect(q.codes.allSatisfy { $0 == 0 })
        let w = MatmulKernelTests.values(n * k, seed: 3)
        let y = Self.product(q, m: m, Self.pack(w, n: n, k: k), wt: Self.transpose(w, n: n, k: k), k: k,
                             start: [Float](repeating: 0, count: m * n), reference: false)
        #expect(y.allSatisfy { $0 == 0 })
    }
}
