import Testing
import KindredCore

@Suite struct KeywordTermsTests {
    @Test func dropsStopwordsAndRepeatsKeepingQueryOrder() {
        #expect(KeywordTerms(query: "The dream where I kept missing a TRAIN, the train!").terms == ["dream", "kept", "missing", "train"])
        #expect(KeywordTerms(query: "Don't you think I'm late?").terms == ["think", "late"])
    }

    @Test func aQueryOfStopwordsOnlyHasNoTerms() {
        #expect(KeywordTerms(query: "the").isEmpty)
        #expect(KeywordTerms(query: "where could I").isEmpty)
        #expect(KeywordTerms(query: "\"*^:-( NEAR").terms == ["near"])
        #expect(KeywordTerms(query: "").isEmpty)
    }

    @Test func boundsTheTermsAndCountsTheRest() {
        let query = (1...50).map { "word\($0)" }.joined(separator: " ") + " word1 the"
        let t = KeywordTerms(query: query, maxTerms: 32)
        #expect(t.terms.count == 32)
        #expect(t.terms.first == "word1")
        #expect(t.terms.last == "word32")
        #expect(t.dropped == 18)
    }

    @Test(arguments: [("flying", "fly"), ("fly", "fly"), ("cranes", "cran"), ("crane", "cran"), ("running", "run"), ("walked", "walk"), ("bus", "bus")])
    func prefixes(term: String, prefix: String) {
        #expect(KeywordTerms.prefix(of: term) == prefix)
    }
}

@Suite struct QueryTextTests {
    @Test func shortTextIsKept() {
        #expect(QueryText.cut("a short query", maxScalars: 13) == nil)
        #expect(QueryText.cut("", maxScalars: 0) == nil)
    }

    @Test func longTextIsCutBetweenWords() {
        #expect(QueryText.cut("alpha beta gamma", maxScalars: 8) == "alpha")
        #expect(QueryText.cut("alpha beta gamma", maxScalars: 10) == "alpha beta")
        #expect(QueryText.cut("alpha beta gamma", maxScalars: 11) == "alpha beta")
        // One word longer than the limit is cut inside it.
        #expect(QueryText.cut("abcdefghij", maxScalars: 4) == "abcd")
        // Counts Unicode scalars, not bytes.
        #expect(QueryText.cut("ééé ééé", maxScalars: 5) == "ééé")
    }

    @Test func aHundredThousandCharactersBecomeAtMostTheLimit() throws {
        let text = String(repeating: "lorem ipsum dolor ", count: 5600)
        let cut = try #require(QueryText.cut(text, maxScalars: 2000))
        #expect(cut.unicodeScalars.count <= 2000)
        #expect(cut.unicodeScalars.count > 1990)
        #expect(text.hasPrefix(cut))
        #expect(cut.hasSuffix("lorem") || cut.hasSuffix("ipsum") || cut.hasSuffix("dolor"))
    }
}

@Suite struct LongTextPassageTests {
    static func scalarsText(_ text: String, _ p: Passage) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: Array(text.unicodeScalars)[p.start..<p.end])
        return String(v)
    }

    @Test func findsTheMatchDeepInALongTextWithExactOffsets() {
        let filler = String(repeating: "Nothing much happened that day, only rain on the café windows. ", count: 2000)
        let text = filler + "Then I was flying over the harbour cranes. " + filler
        let p = Passages.best(in: text, matching: ["fly", "crane"], maxScalars: 200)
        #expect(p.text.contains("Then I was flying over the harbour cranes."))
        #expect(p.end - p.start <= 200)
        #expect(Self.scalarsText(text, p) == p.text)
        // The passage starts at a sentence start.
        #expect(p.text.hasPrefix("Nothing") || p.text.hasPrefix("Then"))
    }

    @Test func stemmedAndCasedWordsMatchAtWordStartsOnly() {
        let text = "A crane stood still. Overflying birds. “Flying” was all I dreamt of."
        #expect(Passages.best(in: text, matching: ["cranes"], maxScalars: 30).text == "A crane stood still.")
        #expect(Passages.best(in: text, matching: ["flying"], maxScalars: 30).text == "“Flying” was all I dreamt of.")
    }

    @Test func withoutAMatchALongTextGivesItsFirstPassage() {
        let text = String(repeating: "The same sentence again and again. ", count: 5000)
        let p = Passages.best(in: text, matching: ["zebra"], maxScalars: 100)
        #expect(p == Passages.split(String(text.prefix(1000)), maxScalars: 100)[0])
    }

    @Test func aMatchInALongUnbrokenRunIsStillInsideItsPassage() {
        let text = String(repeating: "x", count: 10_000) + " " + String(repeating: "word ", count: 3000) + "needle " + String(repeating: "word ", count: 3000)
        let p = Passages.best(in: text, matching: ["needle"], maxScalars: 300)
        #expect(p.text.contains("needle"))
        #expect(p.end - p.start <= 300)
        #expect(Self.scalarsText(text, p) == p.text)
    }
}
