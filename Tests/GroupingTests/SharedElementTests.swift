import Grouping
import LinearAlgebra
import Testing

/// The shared-element rule (`SharedElement.swift`): what a term is, what is specific, and that a
/// weak match needs a specific word shared with the group while a close one does not.
@Suite struct SharedElementTests {
    @Test func termsAreStemmedWordsWithoutStopwords() {
        #expect(SharedElementRule.terms("The trains left; I was missing them, hurrying.") == ["train", "left", "miss", "hurry"])
        #expect(SharedElementRule.stem("glass") == "glass" && SharedElementRule.stem("dresses") == "dress" && SharedElementRule.stem("its") == "its")
    }

    @Test func termsOfAnotherLanguageAreItsSnowballStems() {
        // German: "Zug" and "Zuges", "Bahnsteig" and "Bahnsteigen" are one term each, as its stemmer says.
        let a = SharedElementRule.terms("Ich habe den Zug verpasst, der Bahnsteig war leer und ich war wieder zu spät.")
        let b = SharedElementRule.terms("Die Türen des Zuges schlossen sich, und ich stand allein auf den Bahnsteigen.")
        #expect(a.contains("zug") && b.contains("zug"))
        #expect(a.contains("bahnsteig") && b.contains("bahnsteig"))
        // Spanish likewise ("trenes" and "tren").
        let c = SharedElementRule.terms("Soñé que perdía el tren y que el andén estaba vacío, como siempre en mis sueños.")
        let d = SharedElementRule.terms("Los trenes se iban sin mí y yo corría por la estación con el abrigo a medio poner.")
        #expect(c.contains("tren") && d.contains("tren"))
        // Each language drops its own stopwords, and only its own: "ich" and "hatte" are no German
        // terms, while "See" (the lake) is one, though "see" is on the English list.
        let e = SharedElementRule.terms("Ich hatte am See gesessen, und meine Mutter war auch da.")
        #expect(!e.contains("ich") && !e.contains("hatt") && !e.contains("hatte") && !e.contains("mein"))
        #expect(e.contains("see"), "\(e)")
        // English keeps the crude stem: its terms are as before.
        #expect(SharedElementRule.terms("The trains left; I was missing them, hurrying.") == ["train", "left", "miss", "hurry"])
    }

    @Test func theElementIsSpecificAndSharedWithTheRepresentativeAndAnExample() {
        // 40 basis texts: "dream" in all of them, "lantern" in 2, "ferry" in 3.
        let basis: [Set<String>] = (0..<40).map { i in
            var t: Set<String> = ["dream"]
            if i < 2 { t.insert("lantern") }
            if i < 3 { t.insert("ferry") }
            return t
        }
        let table = SharedElementRule.table(basis)
        let rule = SharedElementRule(maxShare: 0.1, minExamples: 1)
        #expect(rule.isSpecific("lantern", table) && rule.isSpecific("ferry", table) && !rule.isSpecific("dream", table))
        #expect(!rule.isSpecific("comet", table), "a term no basis text holds twice is not known to recur")
        #expect(rule.sharedElement(["dream", "lantern"], representative: ["dream", "lantern"], examples: [["lantern"]], table) == "lantern")
        // A common word alone is no evidence; nor is a word the examples do not hold.
        #expect(rule.sharedElement(["dream"], representative: ["dream"], examples: [["dream"]], table) == nil)
        #expect(rule.sharedElement(["lantern"], representative: ["lantern"], examples: [["ferry"]], table) == nil)
        #expect(rule.sharedElement(["lantern"], representative: ["lantern"], examples: [], table) == "lantern")
        // Two held by as many: the rarer one is named.
        #expect(rule.sharedElement(["lantern", "ferry"], representative: ["lantern", "ferry"], examples: [["lantern", "ferry"]], table) == "lantern")
        let two = SharedElementRule(maxShare: 0.1, minExamples: 2)
        #expect(two.sharedElement(["ferry"], representative: ["ferry"], examples: [["ferry"], ["dream"]], table) == nil)
        #expect(two.sharedElement(["ferry"], representative: ["ferry"], examples: [["ferry"], ["ferry"]], table) == "ferry")
    }

    /// Three records about a lantern grouped; two more at the same weak similarity: the one that
    /// names the lantern joins, the one that does not waits. A close match joins without the word.
    @Test func aWeakJoinNeedsASharedWordAndACloseOneDoesNot() throws {
        var xs: [Occurrence] = []
        let base = Fixture.vec(1)
        func near(_ s: Float, _ axis: Int) -> [Float] {
            var v = [Float](repeating: 0, count: Fixture.d)
            v[0] = s
            v[axis] = (1 - s * s).squareRoot()
            return v
        }
        xs.append(Fixture.occ(1, record: "a", base, description: "the lantern in the attic"))
        xs.append(Fixture.occ(2, record: "b", Fixture.vec(1, 0.05), description: "a lantern swinging in the attic"))
        xs.append(Fixture.occ(3, record: "c", Fixture.vec(1, 0, 0.05), description: "the attic lantern again"))
        xs.append(Fixture.occ(4, record: "d", near(0.5, 5), description: "my lantern went out"))
        xs.append(Fixture.occ(5, record: "e", near(0.5, 6), description: "the kitchen was cold"))
        xs.append(Fixture.occ(6, record: "f", near(0.95, 7), description: "nothing alike in words"))
        // Filler: far from everything, each with words of its own (so lantern and attic stay specific).
        for i in 0..<120 {
            var v = [Float](repeating: 0, count: Fixture.d)
            v[8 + i % 8] = 1
            v[1 + i % 4] = 0.2 * Float(i % 3)
            xs.append(Fixture.occ(Int64(100 + i), record: "z\(i)", Vectors.normalized(v), description: "filler\(i) words\(i)"))
        }
        let occ = Fixture.index(xs)
        let config = GroupingConfig(tauRep: 0.45, tauSup: 0.45, tauSeed: 0.9, looseSeedRecords: 0, calibratedBackground: nil,
                                    evidenceMaxShare: 0.05, evidenceMinimum: 100, evidenceExamples: 1, evidenceAbove: 0.9,
                                    evidenceMinTerms: 2)
        let s = try Fixture.refresh(PatternState(), occ, config: config).state
        let lantern = try #require(s.sortedGroups.first { $0.memberIDs.contains(1) })
        #expect(lantern.memberIDs.contains(4), "the weak match that names the lantern joins")
        #expect(!lantern.memberIDs.contains(5) && s.pending[5] != nil, "the weak match without a shared word waits")
        #expect(lantern.memberIDs.contains(6), "a close match needs no shared word")
        // Without the rule, similarity alone takes the kitchen in too.
        var off = config
        off.evidenceMaxShare = 0
        let plain = try Fixture.refresh(PatternState(), occ, config: off).state
        #expect(plain.sortedGroups.first { $0.memberIDs.contains(1) }?.memberIDs.contains(5) == true)
    }
}
