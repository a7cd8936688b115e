import CKernels
import Foundation
import Testing

/// The int8 dense product (`kindred_gemm_i8`): the AVX-512 VNNI path gives the same bits as the
/// plain C reference, and both stay within the quantisation bound of the float64 product.
@Suite("int8 dense products")
struct Int8KernelTests {
    struct Packed {
        var codes: [Int8], scale: [Float], sums: [Int32]
        let n: Int, kp: Int
    }

    static func pack(_ w: [Float], n: Int, k: Int) -> Packed {
        let kp = kindred_gemm_i8_padded(k), np = kindred_gemm_i8_padded_channels(n)
        var p = Packed(codes: [Int8](repeating: 0, count: np * kp), scale: [Float](repeating: 0, count: np),
                       sums: [Int32](repeating: 0, count: np), n: n, kp: kp)
        kindred_gemm_i8_pack(w, n, k, &p.codes, &p.scale, &p.sums)
        return p
    }

    static func quantize(_ x: [Float], m: Int, k: Int) -> (u: [UInt8], scale: [Float]) {
        var u = [UInt8](repeating: 0, count: m * kindred_gemm_i8_padded(k)), s = [Float](repeating: 0, count: m)
        kindred_gemm_i8_quantize_rows(x, k, m, k, &u, &s)
        return (u, s)
    }

    /// y (m × n, starting from `start`) += the int8 product, by the dispatched kernel or the reference.
    static func product(_ q: (u: [UInt8], scale: [Float]), m: Int, _ p: Packed, start: [Float], reference: Bool) -> [Float] {
        var y = start
        if reference {
            kindred_gemm_i8_reference(q.u, q.scale, m, p.codes, p.scale, p.sums, p.n, p.kp, &y, p.n)
        } else {
            kindred_gemm_i8(q.u, q.scale, m, p.codes, p.scale, p.sums, p.n, p.kp, &y, p.n)
        }
        return y
    }

    static let shapes = [(1, 16, 8), (3, 40, 5), (4, 64, 384), (5, 72, 100), (13, 1152 / 8, 384), (7, 130, 1536), (9, 16, 4)]

    @Test func vnniIsInUseWhereTheCPUHasIt() throws {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let vnni = cpu.contains("avx512_vnni") && cpu.contains("avx512bw")
        #expect(kindred_gemm_i8_vectorized() == (vnni ? 1 : 0))
    }

    @Test("the dispatched kernel gives the reference's bits", arguments: shapes.indices)
    func matchesReference(shape: Int) {
        let (m, n, k) = Self.shapes[shape]
        let x = MatmulKernelTests.values(m * k, seed: UInt64(shape + 1)).map { $0 * 3 }
        let w = MatmulKernelTests.values(n * k, seed: UInt64(shape + 40)).map { $0 * 0.1 }
        let start = MatmulKernelTests.values(m * n, seed: 9)
        let q = Self.quantize(x, m: m, k: k), p = Self.pack(w, n: n, k: k)
        let fast = Self.product(q, m: m, p, start: start, reference: false)
        let plain = Self.product(q, m: m, p, start: start, reference: true)
        #expect(fast == plain)
        // With unit scales the reference's outputs are the integer sums themselves (exact below 2²⁴).
        let ones = (u: q.u, scale: [Float](repeating: 1, count: m))
        var unit = p
        unit.scale = [Float](repeating: 1, count: unit.scale.count)
        let zeros = [Float](repeating: 0, count: m * n)
        let sums = Self.product(ones, m: m, unit, start: zeros, reference: false)
        for i in 0..<m {
            for j in 0..<n {
                var exact = 0
                for t in 0..<k {
                    let code = Int(p.codes[(j / 16) * 16 * p.kp + (t / 4) * 64 + (j % 16) * 4 + t % 4])
                    exact += (Int(q.u[i * p.kp + t]) - 128) * code
                }
                #expect(sums[i * n + j] == Float(exact), "\(m)×\(n)×\(k) at \(i),\(j)")
            }
        }
    }

    /// |Σ x·w − Σ x̂·ŵ| ≤ Σ |x|·sw/2 + Σ |ŵ|·sx/2, with x̂ = sx·qx and ŵ = sw·qw the dequantised values.
    @Test("within the quantisation bound of the float product", arguments: shapes.indices)
    func withinQuantisationBound(shape: Int) {
        let (m, n, k) = Self.shapes[shape]
        let x = MatmulKernelTests.values(m * k, seed: UInt64(shape + 7)), w = MatmulKernelTests.values(n * k, seed: UInt64(shape + 70))
        let q = Self.quantize(x, m: m, k: k), p = Self.pack(w, n: n, k: k)
        let y = Self.product(q, m: m, p, start: [Float](repeating: 0.5, count: m * n), reference: false)
        for i in 0..<m {
            for j in 0..<n {
                var exact = 0.0, bound = 0.0
                for t in 0..<k {
                    let code = Double(p.codes[(j / 16) * 16 * p.kp + (t / 4) * 64 + (j % 16) * 4 + t % 4])
                    exact += Double(x[i * k + t]) * Double(w[j * k + t])
                    bound += abs(Double(x[i * k + t])) * Double(p.scale[j]) / 2 + abs(code * Double(p.scale[j])) * Double(q.scale[i]) / 2
                }
                let got = Double(y[i * n + j]) - 0.5
                #expect(abs(got - exact) <= bound * 1.001 + 1e-5, "\(m)×\(n)×\(k) at \(i),\(j): \(got) vs \(exact)")
                // The bound is far from vacuous: a few percent of the products' size.
                #expect(bound < 0.05 * Double(k))
            }
        }
    }

    @Test func zeroRowsAndWeightsGiveZero() {
        let (m, n, k) = (2, 20, 12)
        let q = Self.quantize([Float](repeating: 0, count: m * k), m: m, k: k)
        #expect(q.scale == [0, 0])
        #expect(q.u.allSatisfy { $0 == 128 })
        let p = Self.pack(MatmulKernelTests.values(n * k, seed: 3), n: n, k: k)
        #expect(Self.product(q, m: m, p, start: [Float](repeating: 0, count: m * n), reference: false).allSatisfy { $0 == 0 })
    }
}
