import Foundation
import Grouping
import KindredCore
import Storage

/// Converts themes between the engine's values and the store's rows, and runs the theme step of a
/// refresh. Themes are not kept in memory between requests: an owner has a few hundred at most.
enum ThemeCodec {
    /// A theme's body is its JSON without its members (they have their own table).
    static func row(_ t: Theme) throws -> ThemeRow {
        var body = t
        body.members = []
        return ThemeRow(owner: t.owner, id: t.id, category: t.category, state: t.dismissed ? "dismissed" : t.state.rawValue,
                        version: Int64(t.version), body: try PatternCodec.encode(body),
                        members: t.members.map { ($0.groupID, $0.source.rawValue) })
    }

    static func theme(_ row: ThemeRow) throws -> Theme {
        var t = try PatternCodec.decode(Theme.self, row.body)
        t.members = row.members.map { ThemeMember(groupID: $0.group, source: ThemeMemberSource(rawValue: $0.source) ?? .automatic) }
        return t
    }
}

/// One owner's themes as stored, with the corrections in force.
struct OwnerThemes {
    var state: ThemeState
    var corrections: [ThemeCorrection]
}

extension KindredService {
    var themeConfig: ThemeConfig { patternConfig.themes }

    func loadThemes(_ store: RecordStore, owner: String) throws -> OwnerThemes {
        var state = ThemeState()
        if let s = try store.themeStateRow(owner: owner) {
            state.nextThemeID = s.nextThemeID
            state.version = Int(s.version)
        }
        for row in try store.themeRows(owner: owner) { state.themes[row.id] = try ThemeCodec.theme(row) }
        let corrections = try store.correctionRows(in: .themes, owner: owner).filter { !$0.undone }
            .map { try PatternCodec.decode(ThemeCorrection.self, $0.body) }
        return OwnerThemes(state: state, corrections: corrections)
    }

    func saveThemeOutcome(_ store: RecordStore, owner: String, _ outcome: ThemeOutcome) throws {
        // Members move between themes: write the themes that lost groups before those that gained.
        for id in outcome.changedThemes {
            guard let t = outcome.state.themes[id] else { continue }
            try store.saveThemeRow(try ThemeCodec.row(t))
        }
        try store.saveThemeStateRow(owner: owner, nextThemeID: outcome.state.nextThemeID, version: Int64(outcome.state.version))
    }

    /// The theme step of a refresh (and after a group correction): the owner's themes brought in
    /// line with its groups, the corrections in force honoured; what changed is written.
    @discardableResult
    func refreshThemes(_ store: RecordStore, owner: String, groups: PatternState, occurrences: [Int64: Occurrence]) throws -> ThemeOutcome {
        let loaded = try loadThemes(store, owner: owner)
        // The groups' means of the last refresh, while made from vectors of the current index version.
        let version = indexVersion.description
        let kept = themeProfiles.take(owner).flatMap { $0.indexVersion == version ? $0.profiles : nil }
        let outcome = ThemeEngine.refresh(themes: loaded.state, groups: groups, occurrences: occurrences,
                                          constraints: ThemeConstraints.derive(from: loaded.corrections), config: themeConfig,
                                          profiles: kept)
        try saveThemeOutcome(store, owner: owner, outcome)
        themeProfiles.store(owner, ThemeProfilesEntry(indexVersion: version, profiles: outcome.profiles))
        return outcome
    }
}

/// An owner's group means as the last theme refresh computed them (`ThemeProfiles`), and the index
/// version of the vectors they were computed from.
struct ThemeProfilesEntry: Sendable {
    var indexVersion: String
    var profiles: ThemeProfiles
}
