import Grouping
import LinearAlgebra
import Testing

/// Placement under an outside judge (`JudgedPlacement.swift`): similarity proposes, the judge
/// decides; joins need two yeses, seeds a yes both ways, and a refresh with nothing new asks nothing.
@Suite struct JudgeTests {
    /// Records every question and answers with `answer`.
    final class Recorder {
        var questions: [JudgeQuestion] = []
        let answer: (JudgeQuestion) -> Verdict
        init(_ answer: @escaping (JudgeQuestion) -> Verdict) { self.answer = answer }
        var judge: Judge { { q in self.questions.append(q); return self.answer(q) } }
    }

    /// A judge that knows each occurrence's situation (nil: a one-off that shares none).
    static func oracle(_ situation: [Int64: String]) -> Recorder {
        Recorder { q in
            guard let a = situation[q.occurrence], a == situation[q.representative] else { return .no }
            return .yes(label: "situation \(a)")
        }
    }

    static func refresh(_ s: PatternState, _ occ: [Int64: Occurrence], config: GroupingConfig = GroupingConfig(),
                        _ judge: Judge?) throws -> RefreshOutcome {
        try PatternEngine.refresh(state: s, occurrences: occ, constraints: Constraints(), config: config, judge: judge)
    }

    /// Two situations, each with a look-alike closer to it than its own members are to each other.
    static let journal: (occurrences: [Int64: Occurrence], situation: [Int64: String]) = {
        let xs = [
            Fixture.occ(1, record: "a1", Fixture.vec(1, 0.10, 0.00)), Fixture.occ(2, record: "a2", Fixture.vec(1, 0.30, 0.05)),
            Fixture.occ(3, record: "a3", Fixture.vec(1, 0.00, 0.30)), Fixture.occ(4, record: "a4", Fixture.vec(1, 0.25, 0.25)),
            Fixture.occ(5, record: "la", Fixture.vec(1, 0.15, 0.12)),
            Fixture.occ(6, record: "b1", Fixture.vec(0.1, 1, 0.9)), Fixture.occ(7, record: "b2", Fixture.vec(0.2, 1, 1.2)),
            Fixture.occ(8, record: "b3", Fixture.vec(0.0, 1, 1.0)), Fixture.occ(9, record: "lb", Fixture.vec(0.1, 1, 1.05)),
        ]
        return (Fixture.index(xs), [1: "A", 2: "A", 3: "A", 4: "A", 6: "B", 7: "B", 8: "B"])
    }()

    @Test func aJudgeThatKnowsTheSituationsGroupsEachWholeAndLeavesTheLookAlikesOut() throws {
        let (occ, situation) = Self.journal
        let judge = Self.oracle(situation)
        let out = try Self.refresh(PatternState(), occ, judge.judge)
        #expect(Set(Fixture.memberSets(out.state).values.filter { $0.count >= 2 }) == [[1, 2, 3, 4], [6, 7, 8]])
        #expect(out.state.pending.keys.sorted() == [5, 9])
        #expect(out.stats.waitingForJudge == 0 && Invariants.check(out.state, occ).isEmpty)
        // Judged members say so, and the suggested label names each group.
        for g in out.state.groups.values where g.state == .active {
            #expect(g.members.allSatisfy { if case .judged = $0.source { true } else { false } })
            #expect(g.label?.hasPrefix("situation ") == true)
        }
        // Every question is about an occurrence and a representative of the same kind, never itself.
        for q in judge.questions {
            #expect(q.occurrence != q.representative && !q.examples.contains(q.occurrence) && !q.members.contains(q.occurrence))
            #expect(q.members.contains(q.representative))
        }
        // Every answer stored: a second refresh asks nothing and changes nothing.
        let again = Recorder { _ in .yes(label: nil) }
        let second = try Self.refresh(out.state, occ, again.judge)
        #expect(again.questions.isEmpty && second.changedGroups.isEmpty && second.state == out.state)
    }

    /// Vectors that all crowd near one direction, as e5's do (background 0.89 here; a situation's
    /// pairs at 0.92): the judge is still asked, and groups the situations, with the floor in the
    /// background's own units (0.10 above it would be 0.99, which no pair reaches).
    @Test func aCrowdedBackgroundStillProposesPairsToTheJudge() throws {
        let (spread, situation) = Self.journal
        var crowded: [Occurrence] = []
        for (id, o) in spread.sorted(by: { $0.key < $1.key }) {
            // Each entry: 0.71 of its situation's direction and 0.7 of its own, then 0.4 of that
            // beside 0.92 of an axis every entry shares.
            var v = o.vector.map { $0 * 0.714 * 0.4 }
            v[3 + Int(id)] = 0.7 * 0.4
            v[3] = 0.917
            crowded.append(Fixture.occ(id, record: o.recordID, Vectors.normalized(v)))
        }
        let occ = Fixture.index(crowded)
        var config = GroupingConfig()
        config.similarityScale = 0.73
        config.backgroundMinimum = 2
        let judge = Self.oracle(situation)
        let out = try Self.refresh(PatternState(), occ, config: config, judge.judge)
        #expect(out.stats.levelChanges.map(\.to) == [89])
        #expect(!judge.questions.isEmpty)
        #expect(Set(Fixture.memberSets(out.state).values.filter { $0.count >= 2 }) == [[1, 2, 3, 4], [6, 7, 8]])
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
        let (occ, situation) = Self.journal
        let silent = Recorder { _ in .unknown }
        let out = try Self.refresh(PatternState(), occ, silent.judge)
        #expect(out.state.groups.isEmpty && out.state.pending.count == occ.count)
        #expect(out.stats.waitingForJudge > 0 && out.state.settledAt == nil)
        let judge = Self.oracle(situation)
        let later = try Self.refresh(out.state, occ, judge.judge)
        #expect(!judge.questions.isEmpty && later.stats.waitingForJudge == 0)
        #expect(Set(Fixture.memberSets(later.state).values.filter { $0.count >= 2 }) == [[1, 2, 3, 4], [6, 7, 8]])
    }

    /// A judge that errs once is not enough to join: yes against the representative and no against
    /// both examples keeps the occurrence out; a no against one example is outvoted by the other.
    @Test func aJoinNeedsYesAgainstTheRepresentativeAndAnExample() throws {
        let (occ, situation) = Self.journal
        var known = situation
        known[5] = nil
        let first = try Self.refresh(PatternState(), occ.filter { $0.key != 5 && $0.key != 9 }, Self.oracle(known).judge)
        let group = try #require(first.state.groups.values.first { Set($0.memberIDs) == [1, 2, 3, 4] })
        let rep = try #require(group.medoid)
        // Occurrence 5, a look-alike, is said to match the representative only.
        let fooled = Recorder { q in q.occurrence == 5 && q.representative == rep ? .yes(label: nil) : Self.oracle(known).answer(q) }
        let out = try Self.refresh(first.state, occ, fooled.judge)
        #expect(out.state.groups[group.id]!.memberIDs == [1, 2, 3, 4] && out.state.pending[5] != nil)
        let about5 = fooled.questions.filter { $0.occurrence == 5 && $0.group == group.id }
        #expect(about5.count >= 3 && about5.first?.representative == rep)
        // Occurrence 2 is refused once by an example but confirmed by the representative and the other.
        let base = try Self.refresh(PatternState(), occ.filter { $0.key != 2 }, Self.oracle(known).judge)
        let g = try #require(base.state.groups.values.first { Set($0.memberIDs) == [1, 3, 4] })
        let firstExample = g.exemplars.filter { $0 != g.medoid }.sorted().first
        let once = Recorder { q in q.occurrence == 2 && q.representative == firstExample ? .no : Self.oracle(known).answer(q) }
        let joined = try Self.refresh(base.state, occ, once.judge)
        #expect(joined.state.groups[g.id]!.memberIDs == [1, 2, 3, 4])
    }

    @Test func aSeedNeedsAYesBothWays() throws {
        let xs = [Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)), Fixture.occ(2, record: "b", Fixture.vec(1, 0.12))]
        let oneWay = Recorder { q in q.occurrence == 1 ? .yes(label: nil) : .no }
        let out = try Self.refresh(PatternState(), Fixture.index(xs), oneWay.judge)
        #expect(out.state.groups.isEmpty)
        #expect(Set(oneWay.questions.map { [$0.occurrence, $0.representative] }) == [[1, 2], [2, 1]])
        let both = try Self.refresh(PatternState(), Fixture.index(xs), Recorder { _ in .yes(label: "pair") }.judge)
        #expect(both.state.sortedGroups.first?.memberIDs == [1, 2] && both.state.sortedGroups.first?.label == "pair")
    }

    /// Two groups of one situation (grown apart while their link was not yet proposed) are combined
    /// once the judge confirms both representatives; the older id survives.
    @Test func twoGroupsTheJudgeConfirmsAreCombinedIntoTheOlder() throws {
        let (occ, situation) = Self.journal
        let aOnly = occ.filter { [1, 2, 3, 4].contains($0.key) }
        // First two separate groups: {1, 2} and {3, 4}, by a judge that keeps them apart.
        let apart = Recorder { q in
            let pair = Set([q.occurrence, q.representative])
            return pair == [1, 2] || pair == [3, 4] ? .yes(label: nil) : .no
        }
        let first = try Self.refresh(PatternState(), aOnly, apart.judge)
        #expect(Set(Fixture.memberSets(first.state).values) == [[1, 2], [3, 4]])
        // A new member of the situation proposes both groups; the judge now knows better.
        var xs = Array(aOnly.values)
        xs.append(Fixture.occ(10, record: "a5", Fixture.vec(1, 0.15, 0.15)))
        var known = situation
        known[10] = "A"
        let out = try Self.refresh(first.state, Fixture.index(xs), Self.oracle(known).judge)
        let live = out.state.groups.values.filter { $0.state == .active }
        #expect(live.count == 1 && Set(live[0].memberIDs) == [1, 2, 3, 4, 10])
        #expect(live[0].id == first.state.groups.keys.min())
        #expect(out.stats.groupsCombined == 1)
    }
}
