import Foundation
import Testing
@testable import Kernels

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

    #if os(Linux)
    /// The flags of the mapping that holds `address`, as `/proc/self/smaps` lists them ("rd wr mr …").
    static func mappingFlags(_ address: UnsafeRawPointer) throws -> [String] {
        // Read to the end: /proc files report a size of 0, which `String(contentsOfFile:)` believes.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return [] }
        defer { try? file.close() }
        let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let a = UInt(bitPattern: address)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] <= a && a < ends[1]
            } else if inside, fields.first == "VmFlags:" {
                return fields.dropFirst().map(String.init)
            }
        }
        return []
    }

    /// The region is advised for huge pages ("hg" in its mapping's flags) when it is first mapped and
    /// still after it has grown and moved, where the system offers transparent huge pages at all.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")))
    func theRegionIsAdvisedForHugePages() throws {
        var b = CodeBuffer(count: 3 << 20) { p in p.update(repeating: 1) }
        let first = try b.withUnsafeBufferPointer { try Self.mappingFlags(UnsafeRawPointer($0.baseAddress!)) }
        #expect(first.contains("hg"), "flags: \(first)")
        b.appendZeros(40 << 20)
        let grown = try b.withUnsafeBufferPointer { try Self.mappingFlags(UnsafeRawPointer($0.baseAddress!)) }
        #expect(grown.contains("hg"), "flags: \(grown)")
        #expect(b.withUnsafeBufferPointer { p in p[0] == 1 && p[(3 << 20) - 1] == 1 && stride(from: 3 << 20, to: p.count, by: 4093).allSatisfy { p[$0] == 0 } })
    }
    #endif
}
