import Testing
@testable import LinearAlgebra

@Suite struct PCATests {
    /// Points spread mostly along `u` (variance 100), less along `v` (variance 1), in 6 dimensions.
    static func plane() -> (Matrix, u: [Float], v: [Float]) {
        let u: [Float] = [0.6, -0.8, 0, 0, 0, 0], v: [Float] = [0, 0, 0.28, -0.96, 0, 0]
        var m = Matrix(rows: 0, cols: 6)
        for i in 0..<21 {
            let a = Float(i - 10) * 1.6, b = Float((i * 7) % 5 - 2) * 0.7
            m.appendRow((0..<6).map { a * u[$0] + b * v[$0] + 0.5 })
        }
        return (m, u, v)
    }

    @Test func findsTheAxesOfLargestSpreadWithFixedSigns() throws {
        let (m, u, v) = Self.plane()
        let p = try PCA.project(m, components: 2)
        let first = Array(p.axes.row(0)), second = Array(p.axes.row(1))
        // Up to sign, the axes are u and v; the sign makes the largest-magnitude entry positive.
        #expect(zip(first, u.map { -$0 }).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(zip(second, v.map { -$0 }).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect(p.variances[0] > p.variances[1] && p.variances[1] > 0)
        var trace: Float = 0
        var mean = [Float](repeating: 0, count: 6)
        for r in 0..<m.rows { for c in 0..<6 { mean[c] += m[r, c] / Float(m.rows) } }
        for c in 0..<6 { for r in 0..<m.rows { trace += (m[r, c] - mean[c]) * (m[r, c] - mean[c]) / Float(m.rows - 1) } }
        #expect(abs(p.totalVariance - trace) < 1e-3 * trace)
        // The projection of a row is its centred dot product with the axis.
        for r in 0..<m.rows {
            let centred = (0..<6).map { m[r, $0] - mean[$0] }
            #expect(abs(p.coordinates[r, 0] - zip(centred, first).map(*).reduce(0, +)) < 1e-3)
        }
    }

    @Test func mirroredPointsGiveTheSameAxesAndMirroredCoordinates() throws {
        let (m, _, _) = Self.plane()
        var mirrored = m
        for i in mirrored.storage.indices { mirrored.storage[i] = -mirrored.storage[i] }
        let a = try PCA.project(m), b = try PCA.project(mirrored)
        #expect(a.axes == b.axes)
        for r in 0..<m.rows { for c in 0..<2 { #expect(abs(a.coordinates[r, c] + b.coordinates[r, c]) < 1e-4) } }
        #expect(try PCA.project(m) == a)
    }

    @Test func degenerateInputsGiveZeros() throws {
        let one = try PCA.project(Matrix(rows: 1, cols: 4, storage: [1, 2, 3, 4]))
        #expect(one.coordinates.storage == [0, 0])
        // Two points: one direction of spread; the second coordinate is 0.
        let two = try PCA.project(Matrix(rows: 2, cols: 3, storage: [1, 0, 0, 0, 1, 0]))
        #expect(abs(abs(two.coordinates[0, 0]) - Float(2).squareRoot() / 2) < 1e-5)
        #expect(two.coordinates[0, 1] == 0 && two.coordinates[1, 1] == 0)
        #expect(two.variances[1] == 0)
    }
}
