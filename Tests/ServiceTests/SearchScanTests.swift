import Testing
import KindredCore
@testable import Service

@Suite struct SearchScanTests {
    /// A filter is applied inside the scan: keeping 3 of 100 000 records returns exactly those 3,
    /// in every mode, however far they are from the query.
    @Test func aFilterKeepingThreeOfOneHundredThousandReturnsThoseThree() throws {
        let f = try ServiceFixture()
        let kept: Set<Int> = [17, 50_001, 99_998]
        for start in stride(from: 0, to: 100_000, by: 10_000) {
            let batch: [JSONValue] = (start..<(start + 10_000)).map { i in
                rec("r\(i)", text: "errand \(i) at the bakery", axis: i % 8,
                    extra: kept.contains(i) ? ["tags": ["rare"]] : ["tags": ["common"]])
            }
            _ = try f.upsert("o", batch)
        }
        let filters: JSONValue = ["tags": ["rare"]]
        let expected = Set(kept.map { "r\($0)" })
        #expect(Set(try f.searchIDs("o", vector: axisVector(3), limit: 10, filters: filters)) == expected)
        for mode in ["keyword", "hybrid"] {
            let r = try f.call("search/query", ["owner": "o", "text": "errand bakery", "vector": .from(axisVector(3)), "mode": .string(mode), "filters": filters])
            #expect(Set(r["results"]!.arrayValue!.map { $0["id"]!.stringValue! }) == expected, "mode \(mode)")
        }
    }
}
