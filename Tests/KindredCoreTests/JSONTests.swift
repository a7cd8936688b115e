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

@Suite struct JSONUnicodeTests {
    static let invalidUTF8: [[UInt8]] = [
        [0xFF],                    // never valid
        [0x80],                    // stray continuation byte
        [0xC0, 0x80],              // overlong NUL
        [0xC1, 0xBF],              // overlong
        [0xE0, 0x80, 0xAF],        // overlong '/'
        [0xF0, 0x82, 0x82, 0xAC],  // overlong '€'
        [0xED, 0xA0, 0x80],        // U+D800 encoded
        [0xED, 0xBF, 0xBF],        // U+DFFF encoded
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xF5, 0x80, 0x80, 0x80],
        [0xE2, 0x82],              // truncated '€'
        [0xF0, 0x9F, 0x98],        // truncated emoji
        [0xC3],                    // truncated 'é'
        [0xC3, 0x41],              // lead byte then ASCII
    ]

    @Test(arguments: invalidUTF8)
    func invalidUTF8InAStringValueIsRefusedWithItsOffset(_ bad: [UInt8]) throws {
        let bytes = Array(#"{"id":"ab"#.utf8) + bad + Array(#"cd"}"#.utf8)
        let e = try #require(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        #expect(e.reason == "invalid UTF-8")
        #expect(e.offset == 9)
        #expect(e.description == "invalid UTF-8 at byte offset 9")
    }

    @Test(arguments: invalidUTF8)
    func invalidUTF8InAKeyOrAfterAnEscapeIsRefused(_ bad: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(#"{""#.utf8) + bad + Array(#"":1}"#.utf8)) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(#"["\n"#.utf8) + bad + Array(#""]"#.utf8)) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(#"[1,"#.utf8) + bad + Array("]".utf8)) }
    }

    @Test func distinctInvalidStringsNoLongerCollide() {
        // Both used to decode to "\u{FFFD}".
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xFE, 0x22]) }
    }

    @Test(arguments: ["é", "東京", "😀", "\u{FFFF}", "\u{10FFFF}", "\u{E000}", "\u{D7FF}"])
    func wellFormedUTF8RoundTrips(_ s: String) throws {
        #expect(try JSONParser.parse(Array(("\"" + s + "\"").utf8)) == .string(s))
        #expect(try JSONParser.parse(JSONWriter.bytes(.string(s))) == .string(s))
    }

    @Test(arguments: [#""\ud800""#, #""\ud800x""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800\ud800""#, #""\ude00\ud83d""#, #""a\udbff""#])
    func loneSurrogateEscapesAreRefused(_ text: String) throws {
        let e = try #require(throws: JSONParseError.self) { try JSONParser.parse(text) }
        #expect(e.reason == "unpaired surrogate escape")
    }

    @Test func nulEscapeIsAValidCharacter() throws {
        #expect(try JSONParser.parse(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(JSONWriter.string(.string("a\u{0}b")) == #""a\u0000b""#)
    }

    @Test func nestingBeyondTheBoundIsAnErrorNotACrash() throws {
        let ok = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        _ = try JSONParser.parse(ok)
        let deep = String(repeating: "{\"a\":", count: JSONParser.maxDepth + 1) + "1" + String(repeating: "}", count: JSONParser.maxDepth + 1)
        let e = try #require(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        #expect(e.reason == "nesting too deep")
    }

    /// Random bytes and single-byte mutations of valid JSON never crash the parser, and whatever it
    /// accepts is valid UTF-8 that writes back to a value that parses the same.
    @Test func randomAndMutatedInputNeverCrashes() throws {
        var rng = SplitMix(seed: 15)
        let seeds = [#"{"jsonrpc":"2.0","id":1,"method":"records/get","params":{"owner":"é","id":"東"}}"#,
                     #"[1,-0.5e3,"a\u00e9\ud83d\ude00",{"k":[true,false,null]}]"#]
        for n in 0..<20_000 {
            var bytes: [UInt8]
            if n % 2 == 0 {
                bytes = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                bytes = Array(seeds[n % 4 / 2].utf8)
                for _ in 0..<(1 + Int(rng.next() % 3)) {
                    bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            if let v = try? JSONParser.parse(bytes) {
                // Integral doubles are written as integers, so compare what is written.
                #expect(JSONWriter.bytes(try JSONParser.parse(JSONWriter.bytes(v))) == JSONWriter.bytes(v))
            }
        }
    }
}

@Suite struct JSONNumberTextTests {
    @Test(arguments: ["12345678901234567890123", "1.0", "-0", "1e3", "1E+3", "0.10", "-1.5e-7", "9223372036854775808"])
    func numbersThatWouldBeRewrittenKeepTheirText(_ text: String) throws {
        let doc = try JSONParser.parseDocument(Array(#"{"id":\#(text),"params":{"id":\#(text),"x":{"y":{"id":\#(text)}}}}"#.utf8), keepingNumberTextOf: "id")
        #expect(doc.numberText[[.key("id")]] == text)
        #expect(doc.numberText[[.key("params"), .key("id")]] == text)
        #expect(doc.numberText[[.key("params"), .key("x"), .key("y"), .key("id")]] == nil, "deeper than the path depth")
        #expect(doc.value["id"]?.doubleValue == Double(text))
    }

    @Test func canonicalNumbersAndOtherKeysKeepNothing() throws {
        let doc = try JSONParser.parseDocument(Array(#"[{"id":7,"n":1.0},{"id":"1.0"},{"id":-12},{"id":0.5}]"#.utf8), keepingNumberTextOf: "id")
        #expect(doc.numberText.isEmpty)
        let batch = try JSONParser.parseDocument(Array(#"[{"id":1.0},{"id":1e3}]"#.utf8), keepingNumberTextOf: "id")
        #expect(batch.numberText == [[.index(0), .key("id")]: "1.0", [.index(1), .key("id")]: "1e3"])
    }
}

/// A small deterministic generator for property tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
