import Testing
@testable import KindredCore

@Suite struct HighlightTests {
    let text = "We drove to the coast. The kite broke free over the dunes! Home by nine."

    @Test func picksTheSentenceWithTheMostTermsWithExactOffsets() {
        let passage = Passage(start: 100, end: 100 + text.unicodeScalars.count, text: text)
        let h = Highlight.best(in: passage, terms: ["kites", "dunes"])
        #expect(h.text == "The kite broke free over the dunes!")
        let scalars = Array(text.unicodeScalars)
        #expect(String(String.UnicodeScalarView(scalars[(h.start - 100)..<(h.end - 100)])) == h.text)
        // One term in the first sentence, two in the second: the second wins.
        #expect(Highlight.best(in: passage, terms: ["coast", "kite", "dune"]).text == "The kite broke free over the dunes!")
        #expect(Highlight.best(in: passage, terms: ["coast"]).text == "We drove to the coast.")
    }

    @Test func withoutAMatchItIsTheFirstSentence() {
        let p = Passage(start: 0, end: text.unicodeScalars.count, text: text)
        #expect(Highlight.best(in: p, terms: ["volcano"]).text == "We drove to the coast.")
        #expect(Highlight.best(in: p, terms: []).text == "We drove to the coast.")
    }

    @Test func longSentencesAreCutAtAWordBoundary() {
        let long = String(repeating: "word ", count: 100) + "end."
        let h = Highlight.best(in: Passage(start: 0, end: long.unicodeScalars.count, text: long), terms: ["end"], maxScalars: 42)
        #expect(h.text.unicodeScalars.count <= 42)
        #expect(h.text.hasSuffix("word"))
        #expect(h.start == 0 && h.end == h.text.unicodeScalars.count)
    }

    @Test func offsetsCountScalarsNotBytes() {
        let t = "Ça commence — 🌊 ici. Le phare balaie les rochers."
        let h = Highlight.best(in: Passage(start: 0, end: t.unicodeScalars.count, text: t), terms: ["phare"])
        #expect(h.text == "Le phare balaie les rochers.")
        #expect(h.start == Array(t.unicodeScalars).count - h.text.unicodeScalars.count)
    }

    @Test func termCoverageMatchesWordStartsLikePassagePlacement() {
        #expect(TermCoverage.share(of: ["flying", "train"], in: "I was flying.") == 0.5)
        #expect(TermCoverage.share(of: ["fly"], in: "Flying high") == 1)
        #expect(TermCoverage.share(of: ["cranes"], in: "a crane stood") == 1)
        #expect(TermCoverage.share(of: ["rain"], in: "the train") == 0)
        #expect(TermCoverage.share(of: [], in: "anything") == 0)
    }
}
