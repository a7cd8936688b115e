import Foundation
import Grouping
import LinearAlgebra
import Testing

/// Thresholds that follow a category's background similarity (`GroupingConfig.adapted(toBackground:)`).
@Suite struct BackgroundTests {
    /// The level in force moves only when a new measure is more than `backgroundMargin` from it,
    /// each move is told in the refresh's stats, and a refresh with nothing new moves nothing.
    @Test func theLevelInForceMovesOnlyPastTheMargin() throws {
        let cfg = GroupingConfig(calibratedBackground: 0.6, backgroundSample: 1000, backgroundMinimum: 10, backgroundMargin: 0.02)
        var all: [Occurrence] = (0..<20).map { i in
            let v = Vectors.normalized((0..<Fixture.d).map { $0 == 0 ? 1 : ($0 == 2 + i % 10 ? 0.5 : 0) })
            return Fixture.occ(Int64(i + 1), record: "a\(i)", v, category: "passage")
        }
        let scope = Scope(owner: "owner", category: "passage")
        let levelA = try #require(GroupingConfig.backgroundLevel(all.map(\.vector)))
        let first = try Fixture.refresh(PatternState(), Fixture.index(all), config: cfg)
        #expect(first.stats.levelChanges == [LevelChange(scope: scope, from: nil, to: levelA)])
        #expect(first.state.levels == [scope: levelA])

        // One more entry moves the measure by less than the margin: the level in force stays.
        all.append(Fixture.occ(21, record: "b", Fixture.vec(1), category: "passage"))
        let levelB = try #require(GroupingConfig.backgroundLevel(all.map(\.vector)))
        try #require(levelB != levelA && abs(levelB - levelA) <= 2)
        let second = try Fixture.refresh(first.state, Fixture.index(all), config: cfg)
        #expect(second.stats.levelChanges.isEmpty)
        #expect(second.state.levels == [scope: levelA])

        // Ten unrelated entries move it past the margin: it moves, and the refresh says from where.
        for i in 0..<10 {
            all.append(Fixture.occ(Int64(30 + i), record: "c\(i)", Fixture.vec(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, Float(i % 3), Float(i % 2)), category: "passage"))
        }
        let levelC = try #require(GroupingConfig.backgroundLevel(all.map(\.vector)))
        try #require(abs(levelC - levelA) > 2)
        let third = try Fixture.refresh(second.state, Fixture.index(all), config: cfg)
        #expect(third.stats.levelChanges == [LevelChange(scope: scope, from: levelA, to: levelC)])
        #expect(third.state.levels == [scope: levelC])
        let again = try Fixture.refresh(third.state, Fixture.index(all), config: cfg)
        #expect(again.stats.levelChanges.isEmpty && again.state == third.state)

        // The level in force is part of the persisted value.
        let decoded = try JSONDecoder().decode(PatternState.self, from: JSONEncoder().encode(third.state))
        #expect(decoded.levels == [scope: levelC])
    }

    @Test func thresholdsKeepTheirPlaceBetweenTheBackgroundAndOne() {
        let c = GroupingConfig()
        #expect(c.adapted(toBackground: 22) == c)
        // Within the tolerance (0.02) of the calibrated background: as configured.
        #expect(c.adapted(toBackground: 20) == c && c.adapted(toBackground: 24) == c)
        #expect(c.adapted(toBackground: 19) != c && c.adapted(toBackground: 25) != c)
        // Above it every similarity threshold rises, seeds and the evidence bound too: e5's cosines
        // (background 0.84) get 0.84 + (0.40 − 0.22) · 0.16 / 0.78 = 0.8769.
        let high = c.adapted(toBackground: 84)
        #expect(abs(high.tauRep - 0.8769) < 1e-4 && abs(high.tauSup - 0.8769) < 1e-4)
        #expect(abs(high.tauSeed - (0.84 + 0.46 * 0.16 / 0.78)) < 1e-4 && abs(high.tauLooseSeed - high.tauRep) < 1e-6)
        #expect(abs(high.tauStay - (0.84 + 0.08 * 0.16 / 0.78)) < 1e-4 && abs(high.evidenceAbove - (0.84 + 0.43 * 0.16 / 0.78)) < 1e-4)
        #expect(high.combineLink == c.combineLink && high.delta == c.delta)
        #expect(c.adapted(toBackground: nil) == c)
        let low = c.adapted(toBackground: 9)
        // 0.09 + (0.40 − 0.22) · 0.91 / 0.78 = 0.30
        #expect(abs(low.tauRep - 0.30) < 1e-4 && abs(low.tauSup - 0.30) < 1e-4)
        // The link share is not a similarity: it does not follow the background.
        #expect(low.combineLink == c.combineLink && low.combineResolution == c.combineResolution)
        // 0.09 + (0.30 − 0.22) · 0.91 / 0.78 = 0.1833: the margin between joining and staying keeps its place too.
        #expect(abs(low.tauStay - 0.1833) < 1e-4)
        #expect(low.tauSeed == c.tauSeed && low.delta == c.delta)
        // τ_rep, τ_sup and τ_combine never below the configured τ_stay, however low the background.
        let none = c.adapted(toBackground: -20)
        #expect(none.tauRep == c.tauStay && none.tauSup == c.tauStay && none.tauCombine >= c.tauStay)
        #expect(none.tauStay < c.tauStay)
        var fixed = c
        fixed.calibratedBackground = nil
        #expect(fixed.adapted(toBackground: 0) == fixed)
    }

    /// A model's similarity scale s multiplies each threshold's distance above the background:
    /// e5's (0.73) at its background of 0.84 puts τ_rep at 0.84 + 0.73 · 0.18 · 0.16 / 0.78.
    @Test func theSimilarityScaleShrinksTheDistanceAboveTheBackground() {
        var c = GroupingConfig()
        c.similarityScale = 0.73
        let high = c.adapted(toBackground: 84)
        let f: Float = 0.73 * 0.16 / 0.78
        #expect(abs(high.tauRep - (0.84 + 0.18 * f)) < 1e-4 && abs(high.tauSup - high.tauRep) < 1e-6)
        #expect(abs(high.tauSeed - (0.84 + 0.46 * f)) < 1e-4 && abs(high.tauStay - (0.84 + 0.08 * f)) < 1e-4)
        #expect(abs(high.evidenceAbove - (0.84 + 0.43 * f)) < 1e-4 && abs(high.tauCombine - (0.84 + 0.28 * f)) < 1e-4)
        #expect(high.tauRep < GroupingConfig().adapted(toBackground: 84).tauRep)
        // At the calibrated background too (and within its tolerance): 0.22 + 0.73 · 0.18.
        let atCalibrated = c.adapted(toBackground: 23)
        #expect(abs(atCalibrated.tauRep - (0.22 + 0.73 * 0.18)) < 1e-4 && abs(atCalibrated.tauSeed - (0.22 + 0.73 * 0.46)) < 1e-4)
        // Scale 1 is exactly the thresholds without one.
        c.similarityScale = 1
        #expect(c.adapted(toBackground: 84) == GroupingConfig().adapted(toBackground: 84) && c.adapted(toBackground: 23) == c)
    }

    /// The judge's floor is a distance above the background that moves as the thresholds do: as
    /// configured at MiniLM's background (and below it), in e5's units at e5's (0.84, scale 0.73):
    /// 0.84 + 0.10 · 0.73 · 0.16 / 0.78, not 0.94, which no pair of e5 vectors of a journal reaches.
    @Test func theJudgesFloorMovesWithTheBackgroundAndTheScale() {
        var c = GroupingConfig()
        #expect(abs(c.judgeFloor(atBackground: 22) - 0.32) < 1e-6 && abs(c.judgeFloor(atBackground: 12) - 0.22) < 1e-6)
        #expect(abs(c.judgeFloor(atBackground: nil) - 0.32) < 1e-6)
        #expect(abs(c.judgeFloor(atBackground: 40) - (0.40 + 0.10 * 0.60 / 0.78)) < 1e-5)
        c.similarityScale = 0.73
        #expect(abs(c.judgeFloor(atBackground: 84) - (0.84 + 0.10 * 0.73 * 0.16 / 0.78)) < 1e-5)
        #expect(abs(c.judgeFloor(atBackground: 22) - (0.22 + 0.073)) < 1e-5)
    }

    @Test func levelIsTheMeanCosineOverPairs() {
        let a = Fixture.vec(1), b = Fixture.vec(0, 1), ab = Fixture.vec(1, 1)
        // Pairs: a·b = 0, a·ab = b·ab = 0.7071 → mean 0.4714.
        #expect(GroupingConfig.backgroundLevel([a, b, ab]) == 47)
        #expect(GroupingConfig.backgroundLevel([a]) == nil)
    }

    /// Two close occurrences and one at cosine 0.35 to both, among texts unrelated to everything:
    /// at the calibrated background the third stays pending (τ_rep = 0.40); in this category, whose
    /// background is near 0, it joins (τ_rep lowered to τ_stay = 0.30).
    @Test func aLooseCategoryAcceptsWeakerEvidence() throws {
        var vs: [[Float]] = [Fixture.vec(1, 0.1), Fixture.vec(1, 0.12)]
        var x = [Float](repeating: 0, count: Fixture.d)
        x[0] = 0.35
        x[Fixture.d - 1] = (1 - 0.35 * 0.35).squareRoot()
        vs.append(x)
        for axis in 2..<(Fixture.d - 1) {
            var v = [Float](repeating: 0, count: Fixture.d)
            v[axis] = 1
            vs.append(v)
        }
        let occ = Fixture.index(vs.enumerated().map { Fixture.occ(Int64($0.offset + 1), record: "r\($0.offset)", $0.element) })
        let adaptive = GroupingConfig(backgroundMinimum: 10)
        var fixed = adaptive
        fixed.calibratedBackground = nil

        let loose = try Fixture.refresh(PatternState(), occ, config: adaptive).state
        #expect(loose.sortedGroups.filter { $0.state == .active }.map(\.memberIDs) == [[1, 2, 3]])
        let strict = try Fixture.refresh(PatternState(), occ, config: fixed).state
        #expect(strict.sortedGroups.filter { $0.state == .active }.map(\.memberIDs) == [[1, 2]])
        #expect(strict.pending[3] != nil)
        // Below `backgroundMinimum` occurrences the thresholds are as configured.
        let small = try Fixture.refresh(PatternState(), occ, config: GroupingConfig(backgroundMinimum: 100)).state
        #expect(small.pending[3] != nil)
    }

    /// The level a refresh keeps for the next one (its basis, patched with new occurrences) is the
    /// one measured again from the state alone (edited, so that it has no kept values): the same
    /// groups, before and after the category's sample is full.
    @Test func keptLevelEqualsTheOneMeasuredAgain() throws {
        let cfg = GroupingConfig(calibratedBackground: 0.6, backgroundSample: 30, backgroundMinimum: 10)
        let first = Fixture.synthetic(seed: 5, records: 40)
        let later = Fixture.synthetic(seed: 6, records: 20, firstID: Int64(first.count + 1), firstRecord: 40)
        var occ = Fixture.index(first)
        let built = try Fixture.refresh(PatternState(), occ, config: cfg).state
        for o in later { occ[o.id] = o }
        var stripped = built
        stripped.groups = built.groups
        let incremental = try Fixture.refresh(built, occ, config: cfg).state
        let again = try Fixture.refresh(stripped, occ, config: cfg).state
        #expect(Fixture.memberSets(incremental) == Fixture.memberSets(again))
        #expect(Invariants.check(incremental, occ).isEmpty)
    }
}
