import Grouping
import Testing

/// The engine's judge hook: no automatic membership without a yes; a no keeps the pair apart until
/// a side changes; no answer leaves the occurrence pending and asked again next time.
@Suite struct JudgeTests {
    /// Records every question and answers with `answer`.
    final class Recorder {
        var questions: [JudgeQuestion] = []
        let answer: (JudgeQuestion) -> Verdict
        init(_ answer: @escaping (JudgeQuestion) -> Verdict) { self.answer = answer }
        var judge: Judge { { q in self.questions.append(q); return self.answer(q) } }
    }

    static func refresh(_ s: PatternState, _ occ: [Int64: Occurrence], config: GroupingConfig = GroupingConfig(),
                        _ judge: Judge?) throws -> RefreshOutcome {
        try PatternEngine.refresh(state: s, occurrences: occ, constraints: Constraints(), config: config, judge: judge)
    }

    @Test func aJudgeThatSaysYesToEverythingGivesTheGroupsSimilarityGives() throws {
        // (Combination is off with a judge; compare with it off.)
        let config = GroupingConfig(combineLink: 2)
        let occ = Fixture.index(Fixture.synthetic(seed: 11))
        let plain = try Self.refresh(PatternState(), occ, config: config, nil)
        let yes = Recorder { _ in .yes(label: nil) }
        let judged = try Self.refresh(PatternState(), occ, config: config, yes.judge)
        #expect(Fixture.memberSets(judged.state) == Fixture.memberSets(plain.state))
        #expect(judged.stats.waitingForJudge == 0)
        #expect(Invariants.check(judged.state, occ).isEmpty)
        // Every member was asked about, or is the representative a seed was asked against.
        let asked = Set(yes.questions.map(\.occurrence)).union(yes.questions.map(\.representative))
        for g in judged.state.groups.values { #expect(Set(g.memberIDs).isSubset(of: asked)) }
        // Questions show the group as it is: representative and examples are members, not the one asked about.
        for q in yes.questions {
            #expect(q.representative != q.occurrence && !q.examples.contains(q.occurrence) && !q.members.contains(q.occurrence))
            #expect(Set(q.examples).isSubset(of: Set(q.members)) && q.members.contains(q.representative))
        }
        #expect(yes.questions.contains { if case .seed = $0.target { true } else { false } })
    }

    @Test func withoutAYesNothingIsGroupedAndASecondRefreshAsksNothing() throws {
        let occ = Fixture.index(Fixture.synthetic(seed: 12))
        let no = Recorder { _ in .no }
        let out = try Self.refresh(PatternState(), occ, no.judge)
        #expect(out.state.groups.isEmpty && out.state.pending.count == occ.count)
        #expect(out.stats.waitingForJudge == 0 && !no.questions.isEmpty)
        let again = Recorder { _ in .yes(label: nil) }
        let second = try Self.refresh(out.state, occ, again.judge)
        #expect(again.questions.isEmpty)
        #expect(second.state == out.state && second.changedGroups.isEmpty)
    }

    @Test func noAnswerLeavesOccurrencesPendingAndTheNextRefreshAsksAgain() throws {
        let config = GroupingConfig(combineLink: 2)
        let occ = Fixture.index(Fixture.synthetic(seed: 13))
        let silent = Recorder { _ in .unknown }
        let out = try Self.refresh(PatternState(), occ, config: config, silent.judge)
        #expect(out.state.groups.isEmpty && out.state.pending.count == occ.count)
        #expect(out.stats.waitingForJudge > 0)
        #expect(out.state.settledAt == nil)
        let yes = Recorder { _ in .yes(label: nil) }
        let later = try Self.refresh(out.state, occ, config: config, yes.judge)
        #expect(!yes.questions.isEmpty && later.stats.waitingForJudge == 0)
        let plain = try Self.refresh(PatternState(), occ, config: config, nil)
        #expect(Fixture.memberSets(later.state) == Fixture.memberSets(plain.state))
    }

    /// Two groups both eligible for a new occurrence: refused by the better, it joins the other.
    @Test func aNoFallsBackToTheNextEligibleGroupAndASuggestedLabelIsTaken() throws {
        let config = GroupingConfig(tauSeed: 0.999, combineLink: 2)
        var xs = [
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.1001)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0.5)), Fixture.occ(4, record: "d", Fixture.vec(1, 0.5001)),
        ]
        let first = try Self.refresh(PatternState(), Fixture.index(xs), config: config, nil)
        #expect(first.state.groups.count == 2)
        let near = try #require(first.state.groups.values.first { $0.memberIDs == [1, 2] })
        let far = try #require(first.state.groups.values.first { $0.memberIDs == [3, 4] })
        xs.append(Fixture.occ(5, record: "e", Fixture.vec(1, 0.2)))
        let occ = Fixture.index(xs)
        let judge = Recorder { q in
            if case .group(near.id, _) = q.target { return .no }
            return .yes(label: "the far one")
        }
        let out = try Self.refresh(first.state, occ, config: config, judge.judge)
        #expect(judge.questions.map(\.target) == [.group(id: near.id, version: near.version), .group(id: far.id, version: far.version)])
        #expect(judge.questions[1].representative == far.medoid && Set(judge.questions[1].members) == [3, 4])
        let joined = try #require(out.state.groups[far.id])
        #expect(joined.memberIDs == [3, 4, 5])
        #expect(joined.label == "the far one" && joined.labelVersion == joined.version)
        #expect(out.state.groups[near.id]!.memberIDs == [1, 2] && out.state.groups[near.id]!.label == nil)

        // The refused pair stays apart while neither side changes: nothing is asked again.
        let quiet = Recorder { _ in .yes(label: nil) }
        let again = try Self.refresh(out.state, occ, config: config, quiet.judge)
        #expect(quiet.questions.isEmpty && again.changedGroups.isEmpty)
    }

    @Test func aSeedNeedsAYesForEachFoundingMember() throws {
        let xs = [
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.12)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0.11)),
        ]
        let occ = Fixture.index(xs)
        // (The clique is 1, 2, 3; its medoid, 3, is the representative the others are asked against.)
        let judge = Recorder { q in q.occurrence == 2 ? .no : .yes(label: "pair") }
        let out = try Self.refresh(PatternState(), occ, judge.judge)
        let g = try #require(out.state.sortedGroups.first)
        #expect(out.state.groups.count == 1 && g.label == "pair")
        #expect(g.memberIDs == [1, 3])
        let seedQuestions = judge.questions.filter { if case .seed = $0.target { true } else { false } }
        #expect(Set(seedQuestions.map(\.occurrence)) == [1, 2])
        for q in seedQuestions { #expect(q.target == .seed(representative: 3) && q.representative == 3) }
        // Refused as a founder, occurrence 2 was asked about the group once it existed, and refused again.
        #expect(judge.questions.contains { $0.occurrence == 2 && $0.target == .group(id: g.id, version: g.version) })
        #expect(out.state.pending.keys.sorted() == [2])
    }
}
