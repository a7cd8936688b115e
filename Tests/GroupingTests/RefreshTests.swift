import Grouping
import KindredTestSupport
import Testing

@Suite struct RefreshTests {
    @Test func groupsTightClusterAndLeavesOutlierPending() throws {
        let xs = [
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1, 0)),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0, 0.1)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0.05, 0.05)),
            Fixture.occ(4, record: "d", Fixture.vec(0, 0, 0, 1)),
        ]
        let occ = Fixture.index(xs)
        let out = try Fixture.refresh(PatternState(), occ)
        let groups = out.state.sortedGroups
        try #require(groups.count == 1)
        #expect(Set(groups[0].memberIDs) == [1, 2, 3])
        #expect(groups[0].state == .active)
        #expect(groups[0].id == 1)
        #expect(out.state.nextGroupID == 2)
        #expect(out.state.pending.keys.sorted() == [4])
        #expect(out.stats.groupsCreated == 1)
        #expect(Invariants.check(out.state, occ).isEmpty)
    }

    @Test func sameRecordNeverTwiceInOneGroup() throws {
        let xs = [
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)),
            Fixture.occ(2, record: "a", Fixture.vec(1, 0.12)),
            Fixture.occ(3, record: "b", Fixture.vec(1, 0.08)),
        ]
        let out = try Fixture.refresh(PatternState(), Fixture.index(xs))
        let g = try #require(out.state.sortedGroups.first)
        #expect(g.memberIDs == [1, 3])
        #expect(out.state.pending.keys.sorted() == [2])
        #expect(Invariants.check(out.state, Fixture.index(xs)).isEmpty)
    }

    @Test func categoriesAndOwnersAreNeverMixed() throws {
        let v = Fixture.vec(1, 0.1)
        let xs = [
            Fixture.occ(1, record: "a", v, category: "person"),
            Fixture.occ(2, record: "b", v, category: "place"),
            Fixture.occ(3, record: "c", v, category: "person", owner: "other"),
        ]
        let out = try Fixture.refresh(PatternState(), Fixture.index(xs))
        #expect(out.state.groups.isEmpty)
        #expect(out.state.pending.count == 3)
    }

    /// A–B and B–C similar, A–C not: never one group.
    @Test(arguments: [(Int64(1), Int64(2), Int64(3)), (2, 1, 3), (3, 2, 1), (1, 3, 2)])
    func chainNeverBecomesOneGroup(ids: (Int64, Int64, Int64)) throws {
        let a = Fixture.occ(ids.0, record: "A", Fixture.vec(1, 0))
        let b = Fixture.occ(ids.1, record: "B", Fixture.vec(1, 1))
        let c = Fixture.occ(ids.2, record: "C", Fixture.vec(0, 1))
        let occ = Fixture.index([a, b, c])
        let out = try Fixture.refresh(PatternState(), occ)
        for g in out.state.groups.values {
            #expect(!(g.memberIDs.contains(a.id) && g.memberIDs.contains(c.id)))
        }
        // And a second refresh does not chain them either.
        let again = try Fixture.refresh(out.state, occ)
        #expect(again.state == out.state)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func refreshTwiceIsIdentical(seed: UInt64) throws {
        let occ = Fixture.index(Fixture.synthetic(seed: seed))
        let first = try Fixture.refresh(PatternState(), occ)
        #expect(first.state.groups.count > 0)
        #expect(Invariants.check(first.state, occ).isEmpty)
        let second = try Fixture.refresh(first.state, occ)
        #expect(second.state == first.state)
        #expect(second.changedGroups.isEmpty)
        #expect(second.stats.assigned == 0 && second.stats.groupsCreated == 0)
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func sameInputsSameGroups(seed: UInt64) throws {
        let occ = Fixture.index(Fixture.synthetic(seed: seed))
        let a = try Fixture.refresh(PatternState(), occ)
        let b = try Fixture.refresh(PatternState(), occ)
        #expect(a.state == b.state)
    }

    @Test(arguments: [UInt64(21), 22, 23, 24])
    func addingUnrelatedOccurrencesKeepsMembershipsAndIDs(seed: UInt64) throws {
        let base = Fixture.synthetic(seed: seed)
        let occ = Fixture.index(base)
        let first = try Fixture.refresh(PatternState(), occ)
        // Unrelated: random one-off directions in another category.
        var rng = SeededGenerator(seed: seed &* 31)
        var more = occ
        for i in 0..<20 {
            let id = Int64(10_000 + i)
            more[id] = Fixture.occ(id, record: "new\(i)", SyntheticData.randomUnit(48, &rng), category: "person")
        }
        let second = try Fixture.refresh(first.state, more)
        for (gid, members) in Fixture.memberSets(first.state) {
            let now = try #require(second.state.groups[gid])
            // Existing members stay where they were.
            #expect(members.isSubset(of: Set(now.memberIDs)))
        }
        #expect(Invariants.check(second.state, more).isEmpty)
    }

    @Test func removalMakesGroupDormantAndItKeepsItsID() throws {
        let xs = [
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.12)),
        ]
        let occ = Fixture.index(xs)
        let out = try Fixture.refresh(PatternState(), occ)
        let g = try #require(out.state.sortedGroups.first)
        let labelled = try PatternEngine.setLabel(out.state, groupID: g.id, version: g.version, label: "Someone")
        #expect(labelled.groups[g.id]?.label == "Someone")

        var rest = occ
        rest[2] = nil
        let removed = PatternEngine.removeOccurrences([2], from: labelled, occurrences: rest)
        let dormant = try #require(removed.state.groups[g.id])
        #expect(dormant.state == .dormant)
        #expect(dormant.label == nil)
        #expect(dormant.version > g.version)
        #expect(removed.changedGroups == [g.id])

        // The record comes back at a new revision (new occurrence id): the same group is revived.
        rest[3] = Fixture.occ(3, record: "b", Fixture.vec(1, 0.11))
        let back = try Fixture.refresh(removed.state, rest)
        #expect(back.state.groups.count == 1)
        #expect(back.state.groups[g.id]?.state == .active)
        #expect(Set(back.state.groups[g.id]!.memberIDs) == [1, 3])
        #expect(back.state.nextGroupID == out.state.nextGroupID)
    }

    @Test func staleLabelIsRefused() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.12)),
        ])
        let out = try Fixture.refresh(PatternState(), occ)
        let g = try #require(out.state.sortedGroups.first)
        #expect(throws: GroupingError.staleVersion(group: g.id, current: g.version, given: g.version - 1)) {
            try PatternEngine.setLabel(out.state, groupID: g.id, version: g.version - 1, label: "x")
        }
    }

    @Test func ambiguousOccurrenceStaysPending() throws {
        // Two groups equally close to x: x must not pick one.
        let xs = [
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.2, 0)),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.25, 0)),
            Fixture.occ(3, record: "c", Fixture.vec(1, 0, 0.2)),
            Fixture.occ(4, record: "d", Fixture.vec(1, 0, 0.25)),
        ]
        let occ = Fixture.index(xs)
        // (Combining groups is off: these two would be combined, see CombinationTests.)
        let cfg = GroupingConfig(tauSeed: 0.99, delta: 0.02, combineLink: 2)
        let seeded = try Fixture.refresh(PatternState(), occ, config: cfg)
        #expect(seeded.state.groups.count == 2)
        var more = occ
        more[5] = Fixture.occ(5, record: "e", Fixture.vec(1, 0.1, 0.1))
        let out = try Fixture.refresh(seeded.state, more, config: cfg)
        #expect(out.state.pending[5] != nil)
        #expect(out.state.pending[5]?.evaluatedAt == out.state.groupsVersion)
    }
}

@Suite struct IncrementalTests {
    /// More history of the same situations: new occurrences join existing groups; nobody moves.
    @Test(arguments: [UInt64(31), 32, 33])
    func moreHistoryJoinsExistingGroupsWithoutMovingAnyone(seed: UInt64) throws {
        let all = Fixture.synthetic(seed: seed, records: 90)
        let early = Fixture.index(Array(all.prefix(120)))
        let full = Fixture.index(all)
        let first = try Fixture.refresh(PatternState(), early)
        let second = try Fixture.refresh(first.state, full)
        #expect(second.stats.assigned > 0)
        for (gid, members) in Fixture.memberSets(first.state) {
            #expect(members.isSubset(of: Set(second.state.groups[gid]?.memberIDs ?? [])))
        }
        #expect(Invariants.check(second.state, full).isEmpty)
        // Co-membership of the early occurrences is unchanged.
        let third = try Fixture.refresh(second.state, full)
        #expect(third.state == second.state)
    }

    /// Incremental equals from-scratch in the number of groups formed for clean clusters.
    @Test func incrementalAndBatchAgreeOnCleanClusters() throws {
        var rng = SeededGenerator(seed: 7)
        let centres = (0..<3).map { _ in SyntheticData.randomUnit(Fixture.d, &rng) }
        var xs: [Occurrence] = []
        for i in 0..<30 {
            xs.append(Fixture.occ(Int64(i + 1), record: "r\(i)", SyntheticData.near(centres[i % 3], spread: 0.3, &rng)))
        }
        let batch = try Fixture.refresh(PatternState(), Fixture.index(xs))
        var state = PatternState()
        var seen: [Occurrence] = []
        for x in xs {
            seen.append(x)
            state = try Fixture.refresh(state, Fixture.index(seen)).state
        }
        let partition = { (s: PatternState) in Set(s.groups.values.filter { $0.state == .active }.map { Set($0.memberIDs) }) }
        #expect(partition(batch.state).count == 3)
        #expect(partition(state) == partition(batch.state))
    }
}

@Suite struct InputValidationTests {
    @Test func mixedDimensionsAreRefusedNamingTheOccurrence() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1, 0.1)),
            Fixture.occ(2, record: "b", [1, 0, 0]),
        ])
        #expect(throws: GroupingError.dimensionMismatch(occurrence: 2, expected: Fixture.d, found: 3)) {
            try Fixture.refresh(PatternState(), occ)
        }
    }

    /// A refresh checks only the occurrences new to the state, against the dimension the state's
    /// occurrences already have, even when a new one carries a lower id than all of them.
    @Test func aNewOccurrenceOfAnotherDimensionIsRefusedInALaterRefresh() throws {
        var seen = [Fixture.occ(5, record: "a", Fixture.vec(1, 0.1)), Fixture.occ(6, record: "b", Fixture.vec(1, 0.2))]
        let state = try Fixture.refresh(PatternState(), Fixture.index(seen)).state
        seen.append(Fixture.occ(2, record: "c", [1, 0, 0]))
        #expect(throws: GroupingError.dimensionMismatch(occurrence: 2, expected: Fixture.d, found: 3)) {
            try Fixture.refresh(state, Fixture.index(seen))
        }
        seen.removeLast()
        seen.append(Fixture.occ(7, record: "c", Fixture.vec(1, 0.3)))
        let after = try Fixture.refresh(state, Fixture.index(seen)).state
        #expect(after.pending[7] != nil || after.groups.values.contains { $0.memberIDs.contains(7) })
    }

    @Test func cancellationThrowsAndLeavesNoPartialResult() throws {
        let occ = Fixture.index(Fixture.synthetic(seed: 3))
        #expect(throws: GroupingError.cancelled) {
            try PatternEngine.refresh(state: PatternState(), occurrences: occ, constraints: Constraints(), isCancelled: { true })
        }
    }
}

@Suite struct SeedingOrderTests {
    /// C is too far from A and B to seed a group with them (< τ_seed) but close enough to join the
    /// group they seed (≥ τ_rep, ≥ τ_sup). Seeding looks at C after that group exists, so C must be
    /// offered the group in the next pass, in the same refresh.
    @Test func anOccurrenceThatSeedsNothingIsOfferedTheGroupsSeededBeforeIt() throws {
        let occ = Fixture.index([
            Fixture.occ(1, record: "a", Fixture.vec(1)),
            Fixture.occ(2, record: "b", Fixture.vec(1, 0.1)),
            Fixture.occ(3, record: "c", Fixture.vec(0.5, 0, 0.866)),
        ])
        let out = try Fixture.refresh(PatternState(), occ)
        let g = try #require(out.state.sortedGroups.first)
        #expect(Set(g.memberIDs) == [1, 2, 3])
        #expect(out.state.pending.isEmpty)
        #expect(try Fixture.refresh(out.state, occ).state == out.state)
    }
}
