import Testing
@testable import Pictures

@Suite struct SVGTextTests {
    @Test func markupCharactersAreEscaped() {
        #expect(SVGText.escape("<script>alert('x')</script> & \"q\"") ==
                "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;")
    }

    @Test func charactersXMLForbidsAreDropped() {
        #expect(SVGText.escape("a\u{0}b\u{1}c\u{FFFF}d\u{85}e") == "abcde")
        #expect(SVGText.escape("tab\tnew\nline") == "tab new line")
    }

    @Test(arguments: [(0.0, "0"), (12.0, "12"), (12.25, "12.3"), (-3.14, "-3.1"), (-0.04, "0"), (799.96, "800")])
    func numbersPrintWithAtMostOneDecimal(x: Double, text: String) {
        #expect(SVGText.number(x) == text)
    }

    @Test func shortenCutsAtAWordBoundary() {
        #expect(SVGText.shorten("Ran for a train that left without me", max: 20) == "Ran for a train…")
        #expect(SVGText.shorten("short", max: 20) == "short")
        #expect(SVGText.shorten("abcdefghijklmnopqrstuvwxyz", max: 10) == "abcdefghi…")
    }
}
