import Grouping
import Testing

/// Generated labels: short, readable, deterministic, without stopword keywords.
@Suite struct LabelTests {
    /// Dream passages in three situations (close vectors within a situation), one record each.
    static func passages() -> [Int64: Occurrence] {
        let texts: [(String, [Float])] = [
            ("All my teeth fell out at a dinner party. I tried to smile and nobody noticed, which was worse.", [1, 0.10]),
            ("My teeth were crumbling in my mouth during a job interview; I kept my hand over it the whole time.", [1, 0.12]),
            ("Again the teeth dream: one by one they fell into the sink while I brushed them.", [1, 0.14]),
            ("I was flying over the city at night, the lights below me like a map, and I wasn't afraid at all.", [0.1, 1]),
            ("Flying again, low over fields this time, and I could steer by leaning.", [0.12, 1]),
            ("I kept missing the train. Every time I reached the platform the doors closed in my face.", [0, 0.1, 1]),
            ("Ran for a train that left without me, then the next one left too, and I was still on the platform.", [0, 0.12, 1]),
            ("Missed the train to my exam; the platform kept moving further away.", [0, 0.14, 1]),
        ]
        var out: [Occurrence] = []
        for (i, (t, v)) in texts.enumerated() {
            out.append(Fixture.occ(Int64(i + 1), record: "d\(i)", Fixture.vec(v[0], v[1], v.count > 2 ? v[2] : 0),
                                   category: "passage", description: t))
        }
        return Fixture.index(out)
    }

    @Test func labelsAreShortHaveNoStopwordKeywordsAndNameTheSharedThing() throws {
        let occ = Self.passages()
        let state = try Fixture.refresh(PatternState(), occ).state
        let labels = PatternEngine.generatedLabels(state: state, occurrences: occ)
        #expect(labels.count == 3)
        let stop: Set<String> = ["a", "the", "my", "i", "one", "them", "and", "was", "in", "it", "at", "to", "of", "again", "kept"]
        for (gid, label) in labels {
            #expect(label.text.count <= 60, "group \(gid): \(label.text)")
            #expect(label.description.count <= 40, "group \(gid): \(label.description)")
            for k in label.keywords { #expect(!stop.contains(k), "group \(gid): stopword keyword \(k)") }
            // A phrase the members share, not the first words of a passage cut short.
            #expect(!label.description.contains("…") && label.description.split(separator: " ").count <= 4, "group \(gid): \(label.text)")
        }
        func label(of o: Int64) -> String { state.group(of: o).flatMap { labels[$0.id]?.description.lowercased() } ?? "" }
        #expect(label(of: 1).contains("teeth"))
        #expect(label(of: 4).contains("flying"))
        #expect(label(of: 6).contains("train"))
    }

    /// German passages are labelled without German stopwords ("ich", "hatte", "meine"), which the
    /// English list does not hold.
    @Test func labelsOfAnotherLanguageHaveNoStopwordsOfThatLanguage() throws {
        let texts: [(String, [Float])] = [
            ("Ich hatte den Zug verpasst, und meine Tasche lag noch auf dem Bahnsteig. Ich war wieder zu spät.", [1, 0.10]),
            ("Wieder der Zug: ich rannte über den Bahnsteig, aber die Türen schlossen sich vor mir, und ich war zu spät.", [1, 0.12]),
            ("Ich kam zu spät zum Bahnsteig, der Zug fuhr ohne mich ab, und ich hatte meine Fahrkarte in der Hand.", [1, 0.14]),
            ("Ich konnte fliegen! Ich hatte keine Angst, und meine Arme trugen mich über die Dächer der Stadt.", [0.1, 1]),
            ("Wieder fliegen, ganz tief über den Feldern, und ich konnte mit den Armen lenken, als hätte ich es immer gekonnt.", [0.12, 1]),
        ]
        let occ = Fixture.index(texts.enumerated().map { i, t in
            Fixture.occ(Int64(i + 1), record: "g\(i)", Fixture.vec(t.1[0], t.1[1]), category: "passage", description: t.0)
        })
        let state = try Fixture.refresh(PatternState(), occ).state
        let labels = PatternEngine.generatedLabels(state: state, occurrences: occ)
        #expect(labels.count == 2)
        let stop: Set<String> = ["ich", "hatte", "meine", "und", "den", "der", "die", "mich", "mir", "wieder", "aber", "keine", "als"]
        for (gid, label) in labels {
            for k in label.keywords { #expect(!stop.contains(k), "group \(gid): stopword keyword \(k) in \(label.text)") }
            let words = label.description.lowercased().split(separator: " ").map(String.init)
            #expect(!stop.contains(words.first ?? "") && !stop.contains(words.last ?? ""), "group \(gid): \(label.text)")
        }
    }

    /// A group's label names the specific word its members share (the shared element), even where
    /// a longer phrase shared by fewer of them would score higher as an n-gram.
    @Test func theLabelNamesTheSharedElement() throws {
        let members = [
            "The old stone jetty was slippery. Far off, the lighthouse beam swept over the water.",
            "Walking along the old stone jetty again. A lighthouse stood at its end, dark.",
            "From my window I watched the lighthouse turning all night.",
        ]
        var all = members.enumerated().map { i, t in
            Fixture.occ(Int64(i + 1), record: "m\(i)", Fixture.vec(1, 0.1 + 0.01 * Float(i)), category: "passage", description: t)
        }
        for i in 0..<100 {
            all.append(Fixture.occ(Int64(10 + i), record: "f\(i)", Fixture.vec(0, 0, 1, Float(i % 7), Float(i % 11)), category: "passage",
                                   description: "Entry \(i): weeded the garden, watched the weather, wrote a little."))
        }
        let occ = Fixture.index(all)
        let state = try Fixture.refresh(PatternState(), occ).state
        let group = try #require(state.group(of: 1))
        #expect(Set(group.memberIDs) == [1, 2, 3])
        #expect(PatternEngine.sharedElement(of: group, occurrences: occ) == "lighthouse")
        let label = try #require(PatternEngine.generatedLabels(state: state, occurrences: occ)[group.id])
        #expect(label.description.lowercased().contains("lighthouse"), "\(label.text)")
        #expect(!label.description.lowercased().hasPrefix("the "), "\(label.text)")
        // Without the rule there is no shared element, and the phrase shared by two of them wins.
        let plain = GroupingConfig(evidenceMaxShare: 0)
        let other = try #require(PatternEngine.generatedLabels(state: state, occurrences: occ, config: plain)[group.id])
        #expect(other.description.lowercased().contains("jetty"), "\(other.text)")
    }

    @Test func labelsAreDeterministicWhateverTheOrderTheStateWasBuiltIn() throws {
        let occ = Self.passages()
        let state = try Fixture.refresh(PatternState(), occ).state
        let a = PatternEngine.generatedLabels(state: state, occurrences: occ)
        // The same values in dictionaries filled in another order.
        var groups: [Int64: Group] = [:], others: [Int64: Occurrence] = [:]
        for (id, g) in state.groups.sorted(by: { $0.key > $1.key }) { groups[id] = g }
        for (id, o) in occ.sorted(by: { $0.key > $1.key }) { others[id] = o }
        var reordered = state
        reordered.groups = groups
        #expect(PatternEngine.generatedLabels(state: reordered, occurrences: others) == a)
        #expect(PatternEngine.generatedLabels(state: state, occurrences: occ) == a)
    }

    @Test func aGroupSharingNoWordIsLabelledByTheMedoidsMostCentralClause() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1), category: "passage",
                        description: "It was late, soaring above rooftops, wind everywhere and a very long sentence after that"),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.11), category: "passage", description: "Gliding high, arms out"),
        ])
        let state = try Fixture.refresh(PatternState(), occ).state
        let g = try #require(state.sortedGroups.first { $0.state == .active })
        let label = try #require(PatternEngine.generatedLabels(state: state, occurrences: occ)[g.id])
        let medoid = occ[g.medoid!]!.description
        #expect(label.description.count <= 40)
        // A clause of the medoid, as written (perhaps cut at a word boundary).
        #expect(medoid.contains(label.description.replacingOccurrences(of: "…", with: "")))
    }
}
