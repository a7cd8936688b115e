import Testing
@testable import KindredCore

@Suite struct JSONParserTests {
    @Test func integersAndDoublesStayDistinct() throws {
        let v = try JSONParser.parse(#"[1, 1.0, -0, 1e2, 9223372036854775807, 9223372036854775808, "1"]"#)
        #expect(v == .array([.int(1), .double(1.0), .int(0), .double(100), .int(Int64.max), .double(9223372036854775808), .string("1")]))
    }

    @Test func escapesAndSurrogates() throws {
        let v = try JSONParser.parse(#"{"a":"\u00e9\n\"\\\/","b":"\ud83d\ude00","c":"$\/cancelRequest"}"#)
        #expect(v["a"] == .string("é\n\"\\/"))
        #expect(v["b"] == .string("😀"))
        #expect(v["c"] == .string("$/cancelRequest"))
    }

    @Test(arguments: ["{", "[1,]", "{\"a\" 1}", "tru", "01", "1.", "\"\u{01}\"", "[1] x", "", "{\"a\":1,}", "-"])
    func malformedInputIsRefused(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func deepNestingIsRefusedNotCrashed() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func objectKeepsOrderAndLastDuplicateWins() throws {
        let v = try JSONParser.parse(#"{"b":1,"a":2,"b":3}"#)
        #expect(v.objectValue?.keys == ["b", "a"])
        #expect(v["b"] == .int(3))
    }

    @Test func writerRoundTripsCompactly() throws {
        let v: JSONValue = ["s": "a/b \"q\" \u{07}", "n": .int(-5), "d": .double(0.25), "f": .bool(false), "z": .null, "a": [1, 2]]
        let text = JSONWriter.string(v)
        #expect(text == #"{"s":"a/b \"q\" \u0007","n":-5,"d":0.25,"f":false,"z":null,"a":[1,2]}"#)
        #expect(try JSONParser.parse(text) == v)
    }

    @Test func floatsRoundTripThroughDoubles() throws {
        let xs: [Float] = [0.1, -3.4028235e38, 1.0e-7, 0.33333334]
        let text = JSONWriter.string(.from(xs))
        let back = try JSONParser.parse(text).arrayValue!.map { Float($0.doubleValue!) }
        #expect(back == xs)
    }
}
