import Foundation
import Testing
@testable import VectorIndex

@Suite struct CodesFileTests {
    func tempPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("codes-\(UUID().uuidString)").path
    }

    /// Written and read back, the index gives the same answers, owners and filters included; a file
    /// with another token, cut short or with one byte changed is refused and leaves the index empty.
    @Test func codesRoundTripAndDamagedFilesAreRefused() throws {
        var rng = SplitMix(state: 77)
        let d = 48
        let source = SeparateRows()
        let a = VectorIndex(dimension: d, rows: source)
        for i in 0..<1500 {
            let v = rng.vector(d)
            source.rows[Int64(i)] = v
            a.put(owner: i % 3 == 0 ? "alice" : "bob", rowid: Int64(i), vector: v)
        }
        for i in stride(from: 0, to: 1500, by: 11) { a.remove(rowid: Int64(i)) }
        let path = tempPath()
        defer { unlink(path) }
        try CodesFile.write(a, to: path, token: "abc")

        let b = VectorIndex(dimension: d, rows: source)
        try CodesFile.read(into: b, from: path, token: "abc")
        #expect(b.count == a.count)
        let alice = a.count(owner: "alice")
        #expect(b.count(owner: "alice") == alice)
        let allowed = Set((0..<1500).filter { $0 % 4 == 0 }.map { Int64($0) })
        for _ in 0..<5 {
            let q = rng.vector(d)
            for owner in ["alice", "bob"] {
                #expect(b.search(owner: owner, query: q, k: 10) == a.search(owner: owner, query: q, k: 10))
                #expect(b.search(owner: owner, query: q, k: 5, allowed: allowed) == a.search(owner: owner, query: q, k: 5, allowed: allowed))
            }
        }
        // The restored index keeps working: puts and removes.
        b.remove(rowid: 1)
        b.put(owner: "alice", rowid: 5000, vector: rng.vector(d))
        #expect(b.count == a.count)

        #expect(throws: CodesFile.Failure.otherToken) { try CodesFile.read(into: VectorIndex(dimension: d), from: path, token: "abd") }
        #expect(throws: CodesFile.Failure.notACodesFile) { try CodesFile.read(into: VectorIndex(dimension: d + 4), from: path, token: "abc") }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = tempPath(), flipped = tempPath()
        defer { unlink(cut); unlink(flipped) }
        try bytes.prefix(bytes.count - 100).write(to: URL(fileURLWithPath: cut))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: flipped))
        for damaged in [cut, flipped] {
            let c = VectorIndex(dimension: d)
            #expect(throws: CodesFile.Failure.damaged) { try CodesFile.read(into: c, from: damaged, token: "abc") }
            #expect(c.count == 0)
        }
    }
}
