import Cluster
import KindredCore
import Testing

/// A snapshot's reader checks the chunks against the header (count, size, SHA-256) before any byte
/// is used: the digests below are FIPS 180-4's own test vectors.
@Suite struct SnapshotCheckTests {
    static func header(size: Int, chunks: Int, sha256: String) -> SnapshotHeader {
        SnapshotHeader(id: "7-test", shard: 3, sequence: 7, size: size, sha256: sha256, chunks: chunks, logFrom: 5)
    }

    static func check(_ chunks: [[UInt8]], sha256: String) throws {
        var check = SnapshotCheck(header(size: chunks.map(\.count).reduce(0, +), chunks: chunks.count, sha256: sha256))
        for c in chunks { try check.add(c) }
        try check.finish()
    }

    @Test func theStandardVectorsPassInAnySplit() throws {
        try Self.check([Array("abc".utf8)], sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let two = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        for cut in [0, 1, 55, 56] {
            try Self.check([Array(two[..<cut]), Array(two[cut...])], sha256: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        }
        // A million 'a' in chunks that straddle the 64-byte blocks.
        let chunks = (0..<1000).map { _ in [UInt8](repeating: 0x61, count: 1000) }
        try Self.check(chunks, sha256: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        try Self.check([], sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func aChangedByteIsRefusedNamingTheDigests() throws {
        var check = SnapshotCheck(Self.header(size: 3, chunks: 1, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        try check.add(Array("abd".utf8))
        let error = #expect(throws: ClusterError.self) { try check.finish() }
        #expect(error?.description.contains("refused") == true && error?.description.contains("ba7816bf") == true, "\(String(describing: error))")
    }

    @Test func missingOrExtraChunksAreRefused() throws {
        let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        var short = SnapshotCheck(Self.header(size: 3, chunks: 2, sha256: sha))
        try short.add(Array("abc".utf8))
        #expect(throws: ClusterError.self) { try short.finish() }
        var long = SnapshotCheck(Self.header(size: 3, chunks: 1, sha256: sha))
        try long.add(Array("ab".utf8))
        #expect(throws: ClusterError.self) { try long.add(Array("c".utf8)) }
    }

    @Test func theHeaderReadsBackFromItsJSON() throws {
        let h = Self.header(size: 10, chunks: 1, sha256: "00")
        #expect(SnapshotHeader(JSONWriter.bytes(h.json)) == h)
        #expect(SnapshotHeader(Array("{\"id\":\"x\"}".utf8)) == nil)
    }
}
