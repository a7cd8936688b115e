import Foundation
import Testing
@testable import Embedding

@Suite("Numeric kernels")
struct KernelTests {
    /// The rational erf is within 4.2e-7 of the exact value (checked in float64 offline);
    /// against glibc's erff allow a little more for erff's own rounding.
    @Test func erfMatchesLibm() {
        var worst: Float = 0
        var x: Float = -6
        while x <= 6 {
            worst = max(worst, abs(RowKernels.erf(x) - erff(x)))
            x += 0.001
        }
        #expect(worst < 5e-7)
    }

    @Test func expMatchesLibm() {
        var worst: Float = 0
        var x: Float = -87
        while x <= 0 {
            let exact = expf(x)
            worst = max(worst, abs(RowKernels.exp(x) - exact) / exact)
            x += 0.0137
        }
        #expect(worst < 3e-7)
        #expect(RowKernels.exp(-1000) >= 0)
        #expect(RowKernels.exp(-1000) < 1e-37)
    }

    @Test func softmaxRowsSumToOne() {
        var m: [Float] = (0..<(7 * 13)).map { Float($0 % 11) * 0.7 - 3 }
        m.withUnsafeMutableBufferPointer { RowKernels.softmaxRows($0.baseAddress!, rows: 7, cols: 13) }
        for r in 0..<7 {
            let row = m[(r * 13)..<((r + 1) * 13)]
            #expect(abs(row.reduce(0, +) - 1) < 1e-6)
            #expect(row.allSatisfy { $0 > 0 })
        }
    }

    @Test func layerNormUsesBiasedVariance() {
        var x: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        let gamma = [Float](repeating: 2, count: 10), beta = [Float](repeating: 1, count: 10)
        x.withUnsafeMutableBufferPointer { RowKernels.layerNorm($0.baseAddress!, rows: 1, cols: 10, gamma: gamma, beta: beta, eps: 0) }
        // mean 5.5, biased variance 8.25
        for (i, v) in x.enumerated() {
            let expected = (Float(i + 1) - 5.5) / Float(8.25).squareRoot() * 2 + 1
            #expect(abs(v - expected) < 1e-5)
        }
    }

    @Test func geluIsErfForm() {
        var x: [Float] = [-3, -1, -0.5, 0, 0.5, 1, 3]
        let expected = x.map { 0.5 * $0 * (1 + erff($0 / Float(2).squareRoot())) }
        x.withUnsafeMutableBufferPointer { RowKernels.gelu($0.baseAddress!, count: $0.count) }
        for (a, b) in zip(x, expected) { #expect(abs(a - b) < 1e-6) }
    }
}

@Suite struct ModelLocationRules {
    @Test func environmentPrecedence() {
        #expect(ModelLocation.defaultDirectory(environment: ["KINDRED_MODEL_DIR": "/m", "XDG_DATA_HOME": "/x"]) == "/m")
        #expect(ModelLocation.defaultDirectory(environment: ["KINDRED_MODEL_DIR": "", "XDG_DATA_HOME": "/x", "HOME": "/h"])
                == "/x/kindred/models/all-MiniLM-L6-v2")
        #expect(ModelLocation.defaultDirectory(environment: ["HOME": "/h"])
                == "/h/.local/share/kindred/models/all-MiniLM-L6-v2")
    }
}
