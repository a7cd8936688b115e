import Foundation
import Testing
@testable import Embedding
import Kernels

@Suite("Numeric kernels")
struct KernelTests {
    @Test func layerNormUsesBiasedVariance() {
        var x: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        let gamma = [Float](repeating: 2, count: 10), beta = [Float](repeating: 1, count: 10)
        x.withUnsafeMutableBufferPointer { LayerNorm.rows($0.baseAddress!, rows: 1, cols: 10, gamma: gamma, beta: beta, eps: 0) }
        // mean 5.5, biased variance 8.25
        for (i, v) in x.enumerated() {
            let expected = (Float(i + 1) - 5.5) / Float(8.25).squareRoot() * 2 + 1
            #expect(abs(v - expected) < 1e-5)
        }
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
