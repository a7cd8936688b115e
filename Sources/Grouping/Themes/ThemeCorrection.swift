/// Theme corrections, stored apart from group corrections and honoured by every later theme
/// refresh (`ThemeConstraints`). The groups they name are resolved when the correction is made.
public enum ThemeCorrectionKind: Sendable, Hashable, Codable {
    /// `group` leaves `theme` and never joins it again.
    case remove(theme: Int64, group: Int64)
    /// `moveOut` groups leave `theme` for a new theme (`newTheme`); they never share a theme with
    /// the groups that stayed (`stayed`).
    case split(theme: Int64, moveOut: [Int64], newTheme: Int64, stayed: [Int64])
    /// `from`'s groups move into `into` (they stay unless corrected again); `from` stays empty.
    case merge(into: Int64, from: Int64, moved: [Int64])
    /// `group` is put in `theme` and is never removed from it automatically.
    case pin(theme: Int64, group: Int64)
    /// The theme is dismissed: its groups (`groups`) leave it, and never share a theme again.
    case dismiss(theme: Int64, groups: [Int64])
}

public struct ThemeCorrection: Sendable, Hashable, Codable {
    public var id: Int64
    public var kind: ThemeCorrectionKind
    public var note: String?
    public var createdAt: String

    public init(id: Int64, kind: ThemeCorrectionKind, note: String? = nil, createdAt: String) {
        self.id = id
        self.kind = kind
        self.note = note
        self.createdAt = createdAt
    }

    /// The themes this correction names.
    public var themes: [Int64] {
        switch kind {
        case let .remove(t, _), let .pin(t, _), let .dismiss(t, _): return [t]
        case let .split(t, _, n, _): return [t, n]
        case let .merge(into, from, _): return [into, from]
        }
    }
}

/// A theme correction as asked for (before resolution).
public enum ThemeCorrectionRequest: Sendable, Hashable {
    case remove(theme: Int64, group: Int64)
    case split(theme: Int64, moveOut: [Int64])
    case merge(into: Int64, from: Int64)
    case pin(theme: Int64, group: Int64)
    case dismiss(theme: Int64)
}

/// What the corrections in force forbid and require, by group id.
public struct ThemeConstraints: Sendable, Hashable {
    /// Groups that never join a theme: (group, theme).
    public var cannotJoin: Set<GroupThemePair> = []
    /// Pairs of groups that never share a theme (lower id first).
    public var cannotShare: Set<GroupPairKey> = []
    /// Group → the theme it is pinned or moved to (the latest correction wins).
    public var decided: [Int64: DecidedTheme] = [:]
    /// Dismissed themes.
    public var dismissed: Set<Int64> = []

    public init() {}

    public static func derive(from corrections: [ThemeCorrection]) -> ThemeConstraints {
        var c = ThemeConstraints()
        for k in corrections.sorted(by: { $0.id < $1.id }) {
            switch k.kind {
            case let .remove(theme, group):
                c.cannotJoin.insert(GroupThemePair(group: group, theme: theme))
                if c.decided[group]?.theme == theme { c.decided[group] = nil }
            case let .split(_, moveOut, newTheme, stayed):
                for a in moveOut { for b in stayed where a != b { c.cannotShare.insert(GroupPairKey(a, b)) } }
                for g in moveOut { c.decided[g] = DecidedTheme(theme: newTheme, source: .moved) }
            case let .merge(into, _, moved):
                for g in moved { c.decided[g] = DecidedTheme(theme: into, source: .moved) }
            case let .pin(theme, group):
                c.decided[group] = DecidedTheme(theme: theme, source: .pinned)
                c.cannotJoin.remove(GroupThemePair(group: group, theme: theme))
            case let .dismiss(theme, groups):
                c.dismissed.insert(theme)
                for (i, a) in groups.enumerated() { for b in groups[(i + 1)...] where a != b { c.cannotShare.insert(GroupPairKey(a, b)) } }
                for g in groups where c.decided[g]?.theme == theme { c.decided[g] = nil }
            }
        }
        return c
    }

    func mayShare(_ a: Int64, _ b: Int64) -> Bool { a == b || !cannotShare.contains(GroupPairKey(a, b)) }
}

public struct GroupThemePair: Sendable, Hashable, Codable {
    public var group: Int64
    public var theme: Int64
    public init(group: Int64, theme: Int64) { self.group = group; self.theme = theme }
}

public struct GroupPairKey: Sendable, Hashable, Codable {
    public var a: Int64
    public var b: Int64
    public init(_ x: Int64, _ y: Int64) { a = min(x, y); b = max(x, y) }
}

/// Why a theme correction was refused.
public enum ThemeError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownTheme(Int64)
    case unknownGroup(Int64)
    /// The field of the correction at fault and why.
    case invalid(field: String, reason: String)

    public var description: String {
        switch self {
        case let .unknownTheme(t): return "unknown theme \(t)"
        case let .unknownGroup(g): return "unknown group \(g)"
        case let .invalid(_, reason): return "invalid correction: \(reason)"
        }
    }
}

/// Where a correction decided a group belongs.
public struct DecidedTheme: Sendable, Hashable {
    public var theme: Int64
    public var source: ThemeMemberSource
    public init(theme: Int64, source: ThemeMemberSource) { self.theme = theme; self.source = source }
}
