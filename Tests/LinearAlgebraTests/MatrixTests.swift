import Testing
@testable import LinearAlgebra

@Suite struct MatrixTests {
    @Test func gemmMatchesNaiveProduct() {
        let a = Matrix(rows: 2, cols: 3, storage: [1, 2, 3, 4, 5, 6])
        let b = Matrix(rows: 2, cols: 3, storage: [1, 0, -1, 2, 1, 0])
        let c = a.timesTransposed(b)
        #expect(c.storage == [-2, 4, -2, 13])
    }

    @Test func swapRemoveKeepsOtherRows() {
        var m = Matrix(rows: 3, cols: 2, storage: [1, 1, 2, 2, 3, 3])
        m.swapRemoveRow(0)
        #expect(m.rows == 2)
        #expect(m.storage == [3, 3, 2, 2])
    }

    @Test func normalizedHasUnitNorm() {
        let v = Vectors.normalized([3, 4])
        #expect(abs(Vectors.norm(v) - 1) < 1e-6)
        #expect(Vectors.normalized([0, 0]) == [0, 0])
    }

    @Test func symmetricEigenOfDiagonal() throws {
        let (values, vectors) = try Eigen.symmetric(Matrix(rows: 2, cols: 2, storage: [2, 0, 0, 5]))
        #expect(values == [2, 5])
        #expect(abs(abs(vectors[1, 1]) - 1) < 1e-6)
    }
}
