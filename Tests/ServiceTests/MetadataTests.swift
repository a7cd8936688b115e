import Testing
import KindredCore
import KindredProtocol
import JSONRPC
@testable import Service

/// A record's metadata comes back as it was sent: keys in their order, integers above 2^53 exact,
/// a number with a fraction as a number; a value that is not flat is refused naming its key.
@Suite struct MetadataTests {
    @Test func metadataRoundTripsExactly() throws {
        let f = try ServiceFixture()
        let metadata: JSONValue = ["zeta": .int(9_007_199_254_740_993), "alpha": 1.5, "mid": "x", "none": .null, "yes": true]
        _ = try f.call("records/upsert", ["owner": "o", "records": [["id": "a", "revision": 1, "text": "some words", "metadata": metadata]]])
        let got = try f.call("records/get", ["owner": "o", "id": "a"])
        #expect(JSONWriter.string(try #require(got["record"]?["metadata"])) == #"{"zeta":9007199254740993,"alpha":1.5,"mid":"x","none":null,"yes":true}"#)
    }

    @Test func nestedValuesAreRefusedNamingTheKey() throws {
        let f = try ServiceFixture()
        let e = f.callError("records/upsert", ["owner": "o", "records": [["id": "a", "revision": 1, "text": "w", "metadata": ["ok": 1, "deep": [1]]]]])
        #expect(e?.data?["field"] == "records[0].metadata.deep")
    }

    @Test func aWholeNumberEqualsTheSameNumberWithAZeroFraction() {
        #expect(Metadata.Value.integer(3) == .number(3))
        #expect(Metadata.Value.integer(3).hashValue == Metadata.Value.number(3).hashValue)
        #expect(Metadata.Value.integer(9_007_199_254_740_993) != .number(9_007_199_254_740_992))
        #expect(Metadata.Value.integer(3) != .number(3.5))
    }
}
