import Foundation
import Grouping
import KindredCLI
import KindredCore

/// `kindred-bench grouping cluster --themes`: themes over the groups, after the build and again
/// after the rows added by the incremental refresh. Prints "themes_initial" (theme id per row of
/// the first N through its group; -1: its group has no active theme or it has no group),
/// "themes_final" (all rows), "theme_ids_before", "theme_ids_kept" (ids active before and after),
/// "theme_labels" and "themes_active".
struct ThemeBench {
    static let options: Set<String> = ["theme-rep", "theme-sup", "theme-seed", "theme-delta", "theme-examples", "theme-group-examples", "theme-centred"]

    var config: ThemeConfig
    var themes: ThemeState
    var initial: [Int]
    var buildSeconds: Double = 0
    var profiles = ThemeProfiles()

    init(_ args: Arguments, state: PatternState, occurrences: [Int64: Occurrence], rows: Int) throws {
        var c = ThemeConfig()
        func f(_ name: String) throws -> Float? {
            guard let v = args.value(name) else { return nil }
            guard let x = Float(v) else { throw Arguments.UsageError(description: "--\(name) must be a number") }
            return x
        }
        if let x = try f("theme-rep") { c.repFraction = x }
        if let x = try f("theme-sup") { c.supFraction = x }
        if let x = try f("theme-seed") { c.seedFraction = x }
        if let x = try f("theme-delta") { c.delta = x }
        if let k = try args.int("theme-examples") { c.examples = k }
        if let k = try args.int("theme-group-examples") { c.groupExamples = k }
        if let k = try args.int("theme-centred") { c.centred = k != 0 }
        config = c
        let clock = ContinuousClock()
        var built: ThemeOutcome!
        let took = clock.measure {
            built = ThemeEngine.refresh(themes: ThemeState(), groups: state, occurrences: occurrences, constraints: ThemeConstraints(), config: c)
        }
        themes = built.state
        profiles = built.profiles
        buildSeconds = GroupingCommand.seconds(took)
        initial = Self.rowThemes(themes, state, rows: rows)
    }

    static func rowThemes(_ themes: ThemeState, _ state: PatternState, rows n: Int) -> [Int] {
        var out = [Int](repeating: -1, count: n)
        for t in themes.themes.values where t.state == .active {
            for gid in t.groupIDs {
                guard let g = state.groups[gid], g.state == .active else { continue }
                for m in g.members { let r = Int(m.occurrenceID) - 1; if r < n { out[r] = Int(t.id) } }
            }
        }
        return out
    }

    func report(into result: inout JSONObject, state: PatternState, occurrences: [Int64: Occurrence], rows: Int) {
        let before = Set(themes.themes.values.filter { $0.state == .active }.map(\.id))
        let clock = ContinuousClock()
        var refreshed: ThemeOutcome!
        let took = clock.measure {
            refreshed = ThemeEngine.refresh(themes: themes, groups: state, occurrences: occurrences, constraints: ThemeConstraints(), config: config,
                                            profiles: profiles)
        }
        let after = refreshed.state
        var again: ThemeOutcome!
        let tookAgain = clock.measure {
            again = ThemeEngine.refresh(themes: after, groups: state, occurrences: occurrences, constraints: ThemeConstraints(), config: config,
                                        profiles: refreshed.profiles)
        }
        result["theme_build_seconds"] = .double(buildSeconds)
        result["theme_refresh_seconds"] = .double(GroupingCommand.seconds(took))
        result["theme_again_seconds"] = .double(GroupingCommand.seconds(tookAgain))
        let active = Set(after.themes.values.filter { $0.state == .active }.map(\.id))
        let labels = ThemeEngine.labels(themes: after, groups: state, occurrences: occurrences, config: config)
        result["themes_initial"] = .array(initial.map { .int(Int64($0)) })
        result["themes_final"] = .array(Self.rowThemes(after, state, rows: rows).map { .int(Int64($0)) })
        result["theme_ids_before"] = .from(before.count)
        result["theme_ids_kept"] = .from(before.intersection(active).count)
        result["themes_active"] = .from(active.count)
        result["themes_idempotent"] = .bool(again.changedThemes.isEmpty && again.state == after)
        result["theme_labels"] = .object(JSONObject(labels.keys.sorted().map { (String($0), JSONValue.string(labels[$0]!.text)) }))
    }
}
