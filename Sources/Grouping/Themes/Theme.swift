/// Themes: the broader situations a person recognises above groups ("difficulty reaching a
/// destination" over "could not find the classroom" and "missed the train"). A theme is a set of
/// groups of one category, built from the groups' representatives and examples by the same kind of
/// rule as groups one level down (`ThemeEngine.swift`). Pure values, like the rest of the module.

/// How a group came to be in a theme.
public enum ThemeMemberSource: String, Sendable, Hashable, Codable {
    /// Placed by the engine (joined by the rule, or founded the theme).
    case automatic
    /// Pinned by a correction: never removed automatically.
    case pinned
    /// Moved by a split or merge correction: never removed automatically.
    case moved

    public var isUserDecided: Bool { self != .automatic }
}

public struct ThemeMember: Sendable, Hashable, Codable {
    public var groupID: Int64
    public var source: ThemeMemberSource

    public init(groupID: Int64, source: ThemeMemberSource) {
        self.groupID = groupID
        self.source = source
    }
}

/// A persistent theme: groups of one owner and category that share a broader situation.
public struct Theme: Sendable, Hashable, Codable {
    /// Monotonic per owner, never reused (`ThemeState.nextThemeID`).
    public var id: Int64
    public var owner: String
    public var category: String
    /// Ascending group id.
    public var members: [ThemeMember]
    /// The member group whose examples are on average most similar to the other members' (ties:
    /// lowest id): the theme's representative.
    public var representative: Int64?
    /// Supporting examples: the member groups most similar to the representative (the
    /// representative first), at most `ThemeConfig.examples`.
    public var examples: [Int64]
    /// Active with at least two groups; dormant below (keeps its id, can regain groups), or dismissed.
    public var state: GroupState
    /// Dismissed by a correction: holds no group and takes none.
    public var dismissed: Bool
    /// The theme this one was merged into by a correction, if any (it stays empty).
    public var mergedInto: Int64?
    /// Bumped on every membership change.
    public var version: Int
    /// `ThemeState.version` at the last membership change.
    public var changedAt: Int

    public init(id: Int64, owner: String, category: String, members: [ThemeMember] = [], representative: Int64? = nil,
                examples: [Int64] = [], state: GroupState = .dormant, dismissed: Bool = false, mergedInto: Int64? = nil,
                version: Int = 0, changedAt: Int = 0) {
        self.id = id
        self.owner = owner
        self.category = category
        self.members = members
        self.representative = representative
        self.examples = examples
        self.state = state
        self.dismissed = dismissed
        self.mergedInto = mergedInto
        self.version = version
        self.changedAt = changedAt
    }

    public var scope: Scope { Scope(owner: owner, category: category) }
    public var groupIDs: [Int64] { members.map(\.groupID) }

    public func member(_ groupID: Int64) -> ThemeMember? { members.first { $0.groupID == groupID } }
}

/// Per owner: the themes and the id counter.
public struct ThemeState: Sendable, Hashable, Codable {
    public var themes: [Int64: Theme]
    /// The next theme id; persisted, so ids are never reused.
    public var nextThemeID: Int64
    /// Bumped by every call that changes a theme's membership.
    public var version: Int

    public init(themes: [Int64: Theme] = [:], nextThemeID: Int64 = 1, version: Int = 0) {
        self.themes = themes
        self.nextThemeID = nextThemeID
        self.version = version
    }

    public var sortedThemes: [Theme] { themes.keys.sorted().map { themes[$0]! } }

    /// The theme holding group `groupID` (active or dormant), if any.
    public func theme(ofGroup groupID: Int64) -> Theme? {
        for id in themes.keys.sorted() where themes[id]!.member(groupID) != nil { return themes[id] }
        return nil
    }

    /// Group id → id of the theme holding it.
    public var themeOfGroup: [Int64: Int64] {
        var out: [Int64: Int64] = [:]
        for (id, t) in themes { for m in t.members { out[m.groupID] = id } }
        return out
    }
}

/// The groups' mean vectors as a theme refresh computed them, by group id with the group version
/// they were computed at: handed to the next refresh, it recomputes only the groups that changed
/// since (a group's members, and so its mean, change only with its version). A derived value.
public struct ThemeProfiles: Sendable, Hashable {
    /// Group id → (version, a digest of the member ids, mean). The digest guards against a version
    /// number reused after a write that was rolled back.
    var entries: [Int64: (version: Int, digest: Int, profile: [Float])] = [:]
    /// Per scope, where the call that made these left it at its fixpoint: the level its thresholds
    /// followed, the groups without a theme, and each theme's signature (`ThemeWorkspace.signature`).
    struct ScopeMemo: Sendable, Hashable {
        var level: Int?
        var free: Set<Int64>
        var themes: [Int64: Int]
    }
    var scopes: [Scope: ScopeMemo] = [:]

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.scopes == b.scopes && a.entries.count == b.entries.count && a.entries.allSatisfy { k, v in b.entries[k].map { $0.version == v.version && $0.digest == v.digest && $0.profile == v.profile } ?? false }
    }

    public func hash(into h: inout Hasher) { h.combine(entries.count) }

    public var count: Int { entries.count }
}

/// What a theme refresh or correction changed.
public struct ThemeOutcome: Sendable, Hashable {
    public var state: ThemeState
    /// The groups' mean vectors of this call, for the next one (`ThemeProfiles`).
    public var profiles = ThemeProfiles()
    /// Themes created or whose membership changed, ascending. Persist these (and the counter).
    public var changedThemes: [Int64]
    public var created: Int
    public var changed: Int
    /// Active themes afterwards (every scope of the owner).
    public var active: Int
}
