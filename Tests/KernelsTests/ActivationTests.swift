import Foundation
import Testing
@testable import Kernels

/// GELU and softmax (`Activations`): the dispatched path gives the plain C reference's bits, and
/// both stay within stated bounds of libm.
@Suite("Activations")
struct ActivationTests {
    /// The rational erf is within 4.2e-7 of the exact value (checked in float64 offline);
    /// against glibc's erff allow a little more for erff's own rounding.
    @Test func erfMatchesLibm() {
        var worst: Float = 0
        var x: Float = -6
        while x <= 6 {
            worst = max(worst, abs(Activations.erf(x) - erff(x)))
            x += 0.001
        }
        #expect(worst < 5e-7)
    }

    @Test func expMatchesLibm() {
        var worst: Float = 0
        var x: Float = -87
        while x <= 0 {
            let exact = expf(x)
            worst = max(worst, abs(Activations.exp(x) - exact) / exact)
            x += 0.0137
        }
        #expect(worst < 3e-7)
        #expect(Activations.exp(-1000) >= 0)
        #expect(Activations.exp(-1000) < 1e-37)
    }

    @Test func geluIsErfForm() {
        var x: [Float] = [-3, -1, -0.5, 0, 0.5, 1, 3]
        let expected = x.map { 0.5 * $0 * (1 + erff($0 / Float(2).squareRoot())) }
        x.withUnsafeMutableBufferPointer { Activations.gelu($0.baseAddress!, count: $0.count) }
        for (a, b) in zip(x, expected) { #expect(abs(a - b) < 1e-6) }
    }

    /// Every length (whole vectors and tails), with values past erf's clamp.
    @Test(arguments: [1, 7, 16, 31, 1536 + 5])
    func geluGivesTheReferenceBits(n: Int) {
        let x = MatmulKernelTests.values(n, seed: UInt64(n)).map { $0 * 6 }
        var fast = x, plain = x
        fast.withUnsafeMutableBufferPointer { Activations.gelu($0.baseAddress!, count: n) }
        plain.withUnsafeMutableBufferPointer { Activations.gelu($0.baseAddress!, count: n, path: .reference) }
        #expect(fast.map(\.bitPattern) == plain.map(\.bitPattern))
    }

    @Test func softmaxRowsSumToOne() {
        var m: [Float] = (0..<(7 * 13)).map { Float($0 % 11) * 0.7 - 3 }
        m.withUnsafeMutableBufferPointer { Activations.softmaxRows($0.baseAddress!, rows: 7, cols: 13) }
        for r in 0..<7 {
            let row = m[(r * 13)..<((r + 1) * 13)]
            #expect(abs(row.reduce(0, +) - 1) < 1e-6)
            #expect(row.allSatisfy { $0 > 0 })
        }
    }

    /// Rows of attention lengths, against the reference's bits and a float64 softmax.
    @Test(arguments: [1, 5, 8, 17, 110])
    func softmaxGivesTheReferenceBits(cols: Int) {
        let rows = 3
        let x = MatmulKernelTests.values(rows * cols, seed: UInt64(cols) + 3).map { $0 * 20 }
        var fast = x, plain = x
        fast.withUnsafeMutableBufferPointer { Activations.softmaxRows($0.baseAddress!, rows: rows, cols: cols) }
        plain.withUnsafeMutableBufferPointer { Activations.softmaxRows($0.baseAddress!, rows: rows, cols: cols, path: .reference) }
        #expect(fast.map(\.bitPattern) == plain.map(\.bitPattern))
        for r in 0..<rows {
            let row = x[(r * cols)..<((r + 1) * cols)].map(Double.init)
            let top = row.max()!, total = row.reduce(0) { $0 + Foundation.exp($1 - top) }
            for (c, v) in row.enumerated() {
                #expect(abs(Double(fast[r * cols + c]) - Foundation.exp(v - top) / total) <= 1e-6)
            }
        }
    }
}

/// LayerNorm (`LayerNorm.rows`): the dispatched path gives the plain C reference's bits, and both are
/// within float rounding of a float64 LayerNorm.
@Suite("LayerNorm")
struct LayerNormTests {
    @Test func usesBiasedVariance() {
        var x: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        let gamma = [Float](repeating: 2, count: 10), beta = [Float](repeating: 1, count: 10)
        x.withUnsafeMutableBufferPointer { LayerNorm.rows($0.baseAddress!, rows: 1, cols: 10, gamma: gamma, beta: beta, eps: 0) }
        // mean 5.5, biased variance 8.25
        for (i, v) in x.enumerated() {
            let expected = (Float(i + 1) - 5.5) / Float(8.25).squareRoot() * 2 + 1
            #expect(abs(v - expected) < 1e-5)
        }
    }

    @Test(arguments: [1, 10, 16, 37, 384])
    func givesTheReferenceBits(cols: Int) {
        let rows = 3
        let x = MatmulKernelTests.values(rows * cols, seed: UInt64(cols) + 11).map { $0 * 4 + 1 }
        let gamma = MatmulKernelTests.values(cols, seed: 5), beta = MatmulKernelTests.values(cols, seed: 6)
        var fast = x, plain = x
        fast.withUnsafeMutableBufferPointer { LayerNorm.rows($0.baseAddress!, rows: rows, cols: cols, gamma: gamma, beta: beta, eps: 1e-12) }
        plain.withUnsafeMutableBufferPointer { LayerNorm.rows($0.baseAddress!, rows: rows, cols: cols, gamma: gamma, beta: beta, eps: 1e-12, path: .reference) }
        #expect(fast.map(\.bitPattern) == plain.map(\.bitPattern))
        for r in 0..<rows where cols > 1 {
            let row = x[(r * cols)..<((r + 1) * cols)].map(Double.init)
            let mean = row.reduce(0, +) / Double(cols), variance = row.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(cols)
            for c in 0..<cols {
                let expected = (row[c] - mean) / (variance + 1e-12).squareRoot() * Double(gamma[c]) + Double(beta[c])
                #expect(abs(Double(fast[r * cols + c]) - expected) <= 1e-5)
            }
        }
    }
}
