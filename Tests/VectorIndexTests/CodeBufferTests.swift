import Testing
@testable import VectorIndex

@Suite struct CodeBufferTests {
    static func bytes(_ b: CodeBuffer) -> [Int8] { b.withUnsafeBufferPointer { Array($0) } }

    /// Growth keeps every code already written, and appended codes start at zero, across many
    /// growths of the region (small and past glibc's mmap threshold).
    @Test func growingKeepsTheCodesAndZeroesTheNewOnes() {
        var b = CodeBuffer()
        var plain: [Int8] = []
        var step = 1
        while plain.count < 1 << 20 {
            let start = b.count
            b.appendZeros(step)
            plain.append(contentsOf: repeatElement(0, count: step))
            #expect(b.withUnsafeBufferPointer { $0[start...].allSatisfy { $0 == 0 } })
            b.withUnsafeMutableBufferPointer { p in for i in start..<p.count { p[i] = Int8(truncatingIfNeeded: i &* 31) } }
            for i in start..<plain.count { plain[i] = Int8(truncatingIfNeeded: i &* 31) }
            step *= 3
        }
        #expect(b.count == plain.count)
        #expect(Self.bytes(b) == plain)
        b.removeLast(5)
        plain.removeLast(5)
        b.appendZeros(2)
        plain.append(contentsOf: [0, 0])
        #expect(Self.bytes(b) == plain)
    }

    /// A copy is a value: changing one (in place, by growing or by shrinking) leaves the other as it was.
    @Test func copiesAreIndependentValues() {
        var a = CodeBuffer(count: 4) { p in for i in p.indices { p[i] = Int8(i + 1) } }
        let b = a
        a.withUnsafeMutableBufferPointer { $0[0] = 9 }
        #expect(Self.bytes(a) == [9, 2, 3, 4])
        #expect(Self.bytes(b) == [1, 2, 3, 4])
        var c = b
        c.appendZeros(1 << 20)
        c.removeLast((1 << 20) + 3)
        #expect(Self.bytes(c) == [1])
        #expect(Self.bytes(b) == [1, 2, 3, 4])
        #expect(CodeBuffer().count == 0 && Self.bytes(CodeBuffer()).isEmpty)
    }
}
