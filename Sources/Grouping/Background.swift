/// The background similarity of a category (`GroupingConfig.adapted(toBackground:)`): the mean
/// cosine over all pairs of its first `backgroundSample` occurrences by id, in hundredths, or nil
/// below `backgroundMinimum` occurrences. Measured where `run` starts on a scope; the same value
/// whichever way it is computed (the same ids, summed in ascending order).
/// A move of a category's level in force (hundredths; `from` nil: it had none).
public struct LevelChange: Sendable, Hashable, Codable {
    public var scope: Scope
    public var from: Int?
    public var to: Int

    public init(scope: Scope, from: Int?, to: Int) {
        self.scope = scope
        self.from = from
        self.to = to
    }
}

struct BackgroundBasis: Sendable {
    /// The ids measured, ascending (at most `backgroundSample`).
    var ids: [Int64]
    var level: Int?
}

extension Workspace {
    /// The background level of `scope`, from the basis the previous refresh of this state left
    /// (patched with this call's new occurrences while the basis is not full), else measured on
    /// every occurrence of the scope.
    mutating func backgroundLevel(_ scope: Scope) -> Int? {
        guard baseConfig.calibratedBackground != nil else { return nil }
        if let b = backgrounds[scope] { return b.level }
        let sample = max(2, baseConfig.backgroundSample)
        var ids: [Int64]
        let newHere = newIDs.filter { occurrences.scopeOf($0) == scope }
        if noneLeft, let kept = derived.backgrounds[scope],
           newHere.allSatisfy({ $0 > kept.ids.last ?? .min }) {
            // Nothing known left and every new id of the scope is above those measured: the first
            // ids stay first.
            if kept.ids.count >= sample {
                backgrounds[scope] = kept
                return kept.level
            }
            ids = kept.ids
            for id in newHere.sorted() where ids.count < sample { ids.append(id) }
            if ids.count == kept.ids.count {
                backgrounds[scope] = kept
                return kept.level
            }
        } else {
            ids = scopeOccurrenceIDs(scope)
            if ids.count > sample { ids = Array(ids.prefix(sample)) }
        }

        let occ = occurrences
        let level = ids.count >= baseConfig.backgroundMinimum
            ? GroupingConfig.backgroundLevel(ids.lazy.map { occ.vectorOf($0)! }) : nil
        backgrounds[scope] = BackgroundBasis(ids: ids, level: level)
        return level
    }

    /// Every current occurrence of `scope`, ascending (also while `reconcile` is still bringing the
    /// state in line with them). One pass over the occurrences sorts them into every scope.
    mutating func scopeOccurrenceIDs(_ scope: Scope) -> [Int64] {
        if occurrenceIDsByScope == nil {
            var byScope: [Scope: [Int64]] = [:]
            let values = occurrences.values
            for i in occurrences.indices { byScope[Scope(owner: values[i].owner, category: values[i].category), default: []].append(occurrences.keys[i]) }
            occurrenceIDsByScope = byScope
        }
        return (occurrenceIDsByScope![scope] ?? []).sorted()
    }

    /// The level in force in `scope` (`PatternState.levels`): the one kept, unless this call's
    /// measure is more than `backgroundMargin` from it (or none is kept), which then becomes the
    /// level in force and is told in `levelChanges`. A category measured too small keeps the level
    /// it has (none when it never had one). The same whichever call asks first: within a call the
    /// measure does not change.
    mutating func levelInForce(_ scope: Scope) -> Int? {
        let kept = state.levels[scope]
        guard let measured = backgroundLevel(scope) else { return kept }
        if let kept, abs(measured - kept) <= Int((Double(baseConfig.backgroundMargin) * 100).rounded()) { return kept }
        state.levels[scope] = measured
        if levelChanges[scope] == nil { levelChanges[scope] = LevelChange(scope: scope, from: kept, to: measured) }
        levelChanges[scope]!.to = measured
        return measured
    }

    /// The thresholds in force in `scope` (`baseConfig` adapted to its level in force).
    mutating func config(for scope: Scope) -> GroupingConfig {
        baseConfig.adapted(toBackground: levelInForce(scope))
    }

    /// τ_stay of `scope`, quantised (the last scope asked for is remembered: settling asks for the
    /// same one many times).
    mutating func stayThreshold(_ scope: Scope) -> Int {
        if let m = lastStay, m.scope == scope { return m.stay }
        let stay = baseConfig.quantise(config(for: scope).tauStay)
        lastStay = (scope, stay)
        return stay
    }
}
