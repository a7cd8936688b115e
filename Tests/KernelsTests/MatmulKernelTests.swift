import Foundation
import Kernels
import Testing

/// The small matrix products of the short-input forward pass (`FloatKernels.multiplyTransposed`), against a
/// float64 product, and the property the shared products rely on: every output is summed the same
/// way whatever block of rows or columns computes it.
@Suite("Short-input matrix products")
struct MatmulKernelTests {
    /// Deterministic values in [-1, 1).
    static func values(_ count: Int, seed: UInt64) -> [Float] {
        var s = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return Float(s % 20_000) / 10_000 - 1
        }
    }

    /// Σₚ xₚ · wₚ in float64 for the k pairs `pair(p)` gives, and Σₚ |xₚ · wₚ| (the scale of its rounding).
    static func float64Dot(_ k: Int, _ pair: (Int) -> (Float, Float)) -> (exact: Double, size: Double) {
        var exact = 0.0, size = 0.0
        for p in 0..<k {
            let (x, w) = pair(p)
            exact += Double(x) * Double(w)
            size += abs(Double(x) * Double(w))
        }
        return (exact, size)
    }

    static func product(_ x: [Float], _ w: [Float], m: Int, n: Int, k: Int, y: [Float], alpha: Float, accumulate: Bool,
                        rows: Range<Int>? = nil, columns: Range<Int>? = nil) -> [Float] {
        var y = y
        let r = rows ?? 0..<m, c = columns ?? 0..<n
        x.withUnsafeBufferPointer { xp in
            w.withUnsafeBufferPointer { wp in
                y.withUnsafeMutableBufferPointer { yp in
                    FloatKernels.multiplyTransposed(xp.baseAddress! + r.lowerBound * k, stride: k, wp.baseAddress! + c.lowerBound * k, stride: k,
                                                    into: yp.baseAddress! + r.lowerBound * n + c.lowerBound, stride: n, m: r.count, n: c.count, k: k,
                                                    alpha: alpha, accumulate: accumulate)
                }
            }
        }
        return y
    }

    @Test("matches a float64 product", arguments: [1, 2, 3, 4, 5, 7, 12, 13])
    func matchesFloat64(m: Int) {
        for (n, k) in [(1, 8), (5, 24), (8, 384), (13, 384), (6, 20)] {
            let x = Self.values(m * k, seed: UInt64(m * 31 + k)), w = Self.values(n * k, seed: UInt64(n * 7 + k))
            let start = Self.values(m * n, seed: 5)
            for accumulate in [false, true] {
                let y = Self.product(x, w, m: m, n: n, k: k, y: start, alpha: 0.5, accumulate: accumulate)
                for i in 0..<m {
                    for j in 0..<n {
                        let (exact, size) = Self.float64Dot(k) { (x[i * k + $0], w[j * k + $0]) }
                        let expected = 0.5 * exact + (accumulate ? Double(start[i * n + j]) : 0)
                        #expect(abs(Double(y[i * n + j]) - expected) <= 1e-6 * (size + 1), "m \(m) n \(n) k \(k) at \(i),\(j)")
                    }
                }
            }
        }
    }

    /// Rows computed alone or in blocks of three, and columns computed in parts at multiples of 4,
    /// give the same bits as the whole product.
    @Test func blocksDoNotChangeResults() {
        let m = 13, n = 1152 / 8, k = 384
        let x = Self.values(m * k, seed: 11), w = Self.values(n * k, seed: 12), start = Self.values(m * n, seed: 13)
        let whole = Self.product(x, w, m: m, n: n, k: k, y: start, alpha: 1, accumulate: true)
        var byRow = start
        for i in 0..<m { byRow = Self.product(x, w, m: m, n: n, k: k, y: byRow, alpha: 1, accumulate: true, rows: i..<(i + 1)) }
        #expect(byRow == whole)
        var byColumns = start
        for c in [0..<36, 36..<72, 72..<108, 108..<144] {
            byColumns = Self.product(x, w, m: m, n: n, k: k, y: byColumns, alpha: 1, accumulate: true, columns: c)
        }
        #expect(byColumns == whole)
    }
}

/// The attention products (`FloatKernels.multiply`, y = alpha · a · b), against a float64 product, at
/// the shapes of a head (d = 32 columns; rows and columns that fill no whole block).
@Suite("Attention matrix products")
struct AttentionProductTests {
    @Test("matches a float64 product", arguments: [(1, 32, 32), (7, 110, 32), (110, 32, 110), (13, 5, 9), (6, 33, 17), (25, 47, 3), (5, 20, 7), (29, 24, 32)])
    func matchesFloat64(shape: (Int, Int, Int)) {
        let (m, n, k) = shape
        let a = MatmulKernelTests.values(m * k, seed: UInt64(m * 5 + k)), b = MatmulKernelTests.values(k * n, seed: UInt64(n * 3 + k))
        // Row strides wider than the rows, and outputs around the block that must stay untouched.
        let lda = k + 3, ldb = n + 5, ldy = n + 2
        var ap = [Float](repeating: 9, count: m * lda), bp = [Float](repeating: 9, count: k * ldb)
        for i in 0..<m { for p in 0..<k { ap[i * lda + p] = a[i * k + p] } }
        for p in 0..<k { for j in 0..<n { bp[p * ldb + j] = b[p * n + j] } }
        var y = [Float](repeating: -7, count: m * ldy)
        FloatKernels.multiply(ap, stride: lda, bp, stride: ldb, into: &y, stride: ldy, m: m, n: n, k: k, alpha: 0.25)
        for i in 0..<m {
            for j in 0..<n {
                let (exact, size) = MatmulKernelTests.float64Dot(k) { (a[i * k + $0], b[$0 * n + j]) }
                #expect(abs(Double(y[i * ldy + j]) - 0.25 * exact) <= 1e-6 * (size + 1), "\(m)×\(n)×\(k) at \(i),\(j)")
            }
            for j in n..<ldy { #expect(y[i * ldy + j] == -7, "column \(j) of row \(i) written") }
        }
    }

    /// Any block of rows gives the same bits as the whole product.
    @Test func rowBlocksDoNotChangeResults() {
        let m = 23, n = 45, k = 32
        let a = MatmulKernelTests.values(m * k, seed: 21), b = MatmulKernelTests.values(k * n, seed: 22)
        var whole = [Float](repeating: 0, count: m * n), byRow = whole
        FloatKernels.multiply(a, stride: k, b, stride: n, into: &whole, stride: n, m: m, n: n, k: k)
        for i in 0..<m {
            a.withUnsafeBufferPointer { ap in
                byRow.withUnsafeMutableBufferPointer { yp in
                    FloatKernels.multiply(ap.baseAddress! + i * k, stride: k, b, stride: n, into: yp.baseAddress! + i * n, stride: n, m: 1, n: n, k: k)
                }
            }
        }
        #expect(byRow == whole)
    }
}

/// One sequence's self-attention (`FloatKernels.attention`) against a float64 softmax attention, with
/// rows wider than Q | K | V and outputs around each head's columns that must stay untouched.
@Suite("Self-attention of a sequence")
struct AttentionTests {
    @Test(arguments: [(1, 2, 8), (7, 3, 16), (45, 2, 32)])
    func matchesFloat64(shape: (Int, Int, Int)) {
        let (t, heads, d) = shape
        let h = heads * d, ld = 3 * h + 5, ldo = h + 3
        let qkv = MatmulKernelTests.values(t * ld, seed: UInt64(t * 7 + d)).map { $0 * 3 }
        var out = [Float](repeating: -7, count: t * ldo)
        var scratch = [Float](repeating: .nan, count: FloatKernels.attentionScratch(rows: t, heads: heads, width: d))
        let scale = 1 / Float(d).squareRoot()
        FloatKernels.attention(qkv, stride: ld, rows: t, heads: heads, width: d, scale: scale, into: &out, stride: ldo, scratch: &scratch)
        for head in 0..<heads {
            for i in 0..<t {
                let q = (0..<d).map { Double(qkv[i * ld + head * d + $0]) }
                var scores = [Double](repeating: 0, count: t)
                for j in 0..<t {
                    for c in 0..<d { scores[j] += q[c] * Double(qkv[j * ld + h + head * d + c]) }
                    scores[j] *= Double(scale)
                }
                let top = scores.max()!, weights = scores.map { Foundation.exp($0 - top) }, total = weights.reduce(0, +)
                for c in 0..<d {
                    var exact = 0.0
                    for j in 0..<t { exact += weights[j] / total * Double(qkv[j * ld + 2 * h + head * d + c]) }
                    #expect(abs(Double(out[i * ldo + head * d + c]) - exact) <= 1e-5, "head \(head) row \(i) column \(c)")
                }
            }
        }
        for i in 0..<t { for j in h..<ldo { #expect(out[i * ldo + j] == -7, "column \(j) of row \(i) written") } }
    }
}
