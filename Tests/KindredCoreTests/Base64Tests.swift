import Foundation
import Testing
@testable import KindredCore

@Suite struct Base64Tests {
    /// Every length from 0 to 70 bytes, random contents: the decoder gives back what Foundation's
    /// encoder wrote, padded and unpadded.
    @Test func decodesWhatFoundationEncodes() throws {
        var rng = SystemRandomNumberGenerator()
        for n in 0...70 {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = Data(bytes).base64EncodedString()
            #expect(try Base64.decode(text) == bytes, "length \(n)")
            let unpadded = String(text.reversed().drop { $0 == "=" }.reversed())
            #expect(try Base64.decode(unpadded) == bytes, "length \(n) unpadded")
        }
    }

    @Test func knownValues() throws {
        #expect(try Base64.decode("") == [])
        #expect(try Base64.decode("TWFu") == Array("Man".utf8))
        #expect(try Base64.decode("TWE=") == Array("Ma".utf8))
        #expect(try Base64.decode("TQ==") == Array("M".utf8))
        #expect(try Base64.decode("+/+/") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: [
        ("TW u", 2),         // whitespace
        ("TW\nu", 2),
        ("TW-_", 2),         // the URL-safe alphabet
        ("TQ==TWFu", 2),     // padding inside
        ("TWFuT", 5),        // one character past a quartet
        ("TWE==", 5),        // padded but not a multiple of 4
        ("TR==", 1),         // bits left over after the last byte
        ("TWF\u{E9}TWE", 3), // not ASCII
    ] as [(String, Int)])
    func refusesWhatIsNotCanonical(text: String, offset: Int) {
        #expect(throws: Base64.Problem.self) { try Base64.decode(text) }
        do { _ = try Base64.decode(text) } catch { #expect(error.offset == offset, "\(text): \(error.reason)") }
    }
}
