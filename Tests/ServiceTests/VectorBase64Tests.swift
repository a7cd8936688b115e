import Foundation
import Testing
import KindredCore
import JSONRPC
@testable import Service

/// Client vectors sent as base64 of little-endian float32 (`records[i].vector`, `search/query` `vector`).
@Suite struct VectorBase64Tests {
    /// Little-endian float32 bytes in base64, written here byte by byte, apart from the server's decoder.
    static func base64(_ v: [Float]) -> String {
        var bytes: [UInt8] = []
        for x in v { withUnsafeBytes(of: x.bitPattern.littleEndian) { bytes += $0 } }
        return Data(bytes).base64EncodedString()
    }

    static func storedVector(_ f: ServiceFixture, _ id: String) throws -> [Float]? {
        let version = f.service.indexVersion
        return try f.service.withReader { store in
            guard let s = try store.get(owner: "o", id: id) else { return nil }
            return try store.vector(rowid: s.rowid, indexVersion: version)
        }
    }

    @Test func base64StoresTheSameVectorAsTheArray() throws {
        let f = try ServiceFixture()
        let v: [Float] = [0.1, -0.25, 3e-5, 0.7, -1, 1e-3, 0.333, 0.125]
        #expect(try f.upsert("o", [rec("json", extra: ["vector": .from(v)]), rec("b64", extra: ["vector": .string(Self.base64(v))])])
            == ["created", "created"])
        let stored = try #require(try Self.storedVector(f, "b64"))
        #expect(stored == (try Self.storedVector(f, "json")))
        #expect(try f.call("records/get", ["owner": "o", "id": "b64"])["vector"] == "client")
        // A search by the same vector in base64 finds both at the top, with equal scores.
        let hits = try f.call("search/query", ["owner": "o", "vector": .string(Self.base64(v)), "mode": "semantic", "limit": 2])["results"]!.arrayValue!
        #expect(Set(hits.map { $0["id"]!.stringValue! }) == ["json", "b64"])
        #expect(hits[0]["score"] == hits[1]["score"])
    }

    @Test func unpaddedBase64IsTheSameVector() throws {
        let f = try ServiceFixture()
        let v = axisVector(2)
        let padded = Self.base64(v)
        // 32 bytes → 44 characters with one '='.
        #expect(padded.hasSuffix("="))
        #expect(try f.upsert("o", [rec("a", extra: ["vector": .string(String(padded.dropLast()))])]) == ["created"])
        #expect(try f.searchIDs("o", vector: v, limit: 1) == ["a"])
    }

    static var nan: Float { .nan }

    @Test(arguments: [
        (base64([Float](repeating: 0.5, count: 7)), "must have 8 dimensions, got 7"),
        (base64([Float](repeating: 0.5, count: 9)), "must have 8 dimensions, got 9"),
        (Data([UInt8](repeating: 1, count: 30)).base64EncodedString(), "not a whole number of float32 values"),
        ("AAAA AAA", "is not base64"),
        ("AAAA*AAA", "character '*' at offset 4"),
        ("AAAAA", "no base64 string is that long"),
        (base64((0..<8).map { $0 == 5 ? nan : 0.5 }), "value 5 (bytes 20–23) is NaN"),
        (base64((0..<8).map { $0 == 0 ? -Float.infinity : 0.5 }), "value 0 (bytes 0–3) is infinite"),
        (base64([Float](repeating: 0, count: 8)), "must not be all zeros"),
        (base64([Float](repeating: 1e-30, count: 8)), "to be scaled to unit length"),
    ] as [(String, String)])
    func badBase64RefusesTheWholeRequest(text: String, reason: String) throws {
        let f = try ServiceFixture()
        let e = try #require(f.callError("records/upsert", ["owner": "o", "records": [rec("good", axis: 1), rec("bad", extra: ["vector": .string(text)])]]))
        #expect(e.code == .invalidParams)
        #expect(e.data?["field"] == "records[1].vector")
        let got = e.data?["reason"]?.stringValue ?? ""
        #expect(got.contains(reason), "\(got)")
        #expect(e.message.hasPrefix("invalid params: records[1].vector: "))
        #expect(try f.call("index/status", ["owner": "o"])["records"] == 0)
        // The same string as a search vector is refused naming `vector`.
        #expect(f.callError("search/query", ["owner": "o", "vector": .string(text)])?.data?["field"] == "vector")
    }

    @Test func otherTypesAreRefusedNamingBothForms() throws {
        let f = try ServiceFixture()
        let e = try #require(f.callError("records/upsert", ["owner": "o", "records": [rec("a", extra: ["vector": 5])]]))
        #expect(e.data?["field"] == "records[0].vector")
        #expect(e.data?["reason"]?.stringValue?.contains("base64 string") == true)
    }
}
