/// Themes, their members, the theme counter and theme corrections (migration 20). Like the other
/// pattern tables, no transaction of its own: the service wraps a request's writes in one.
public struct ThemeRow: Sendable, Equatable {
    public var owner: String
    public var id: Int64
    public var category: String
    public var state: String
    public var version: Int64
    /// The theme's JSON without its members.
    public var body: String
    /// (group id, source), ascending group id.
    public var members: [(group: Int64, source: String)]

    public init(owner: String, id: Int64, category: String, state: String, version: Int64, body: String, members: [(group: Int64, source: String)]) {
        self.owner = owner
        self.id = id
        self.category = category
        self.state = state
        self.version = version
        self.body = body
        self.members = members
    }

    public static func == (a: ThemeRow, b: ThemeRow) -> Bool {
        a.owner == b.owner && a.id == b.id && a.category == b.category && a.state == b.state && a.version == b.version && a.body == b.body
            && a.members.map(\.group) == b.members.map(\.group) && a.members.map(\.source) == b.members.map(\.source)
    }
}

extension RecordStore {
    public func themeRows(owner: String) throws -> [ThemeRow] {
        var members: [Int64: [(group: Int64, source: String)]] = [:]
        try database.query("SELECT theme, group_id, source FROM pattern_theme_members WHERE owner = ? ORDER BY theme, group_id", [.text(owner)]) {
            ($0.int(0), $0.int(1), $0.text(2) ?? "automatic")
        }.forEach { members[$0.0, default: []].append(($0.1, $0.2)) }
        return try database.query("SELECT id, category, state, version, body FROM pattern_themes WHERE owner = ? ORDER BY id", [.text(owner)]) {
            ThemeRow(owner: owner, id: $0.int(0), category: $0.text(1) ?? "", state: $0.text(2) ?? "dormant", version: $0.int(3),
                     body: $0.text(4) ?? "{}", members: [])
        }.map { var r = $0; r.members = members[r.id] ?? []; return r }
    }

    /// Writes a theme and replaces its members.
    public func saveThemeRow(_ row: ThemeRow) throws {
        try database.run("""
            INSERT INTO pattern_themes(owner, id, category, state, version, body) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(owner, id) DO UPDATE SET category = excluded.category, state = excluded.state, version = excluded.version,
                body = excluded.body
            """, [.text(row.owner), .int(row.id), .text(row.category), .text(row.state), .int(row.version), .text(row.body)])
        try database.run("DELETE FROM pattern_theme_members WHERE owner = ? AND theme = ?", [.text(row.owner), .int(row.id)])
        for m in row.members {
            try database.run("""
                INSERT INTO pattern_theme_members(owner, group_id, theme, source) VALUES (?, ?, ?, ?)
                ON CONFLICT(owner, group_id) DO UPDATE SET theme = excluded.theme, source = excluded.source
                """, [.text(row.owner), .int(m.group), .int(row.id), .text(m.source)])
        }
    }

    /// The theme counter and version (nil: the owner has no theme state yet).
    public func themeStateRow(owner: String) throws -> (nextThemeID: Int64, version: Int64)? {
        try database.query("SELECT next_theme_id, version FROM pattern_theme_state WHERE owner = ?", [.text(owner)]) {
            ($0.int(0), $0.int(1))
        }.first
    }

    /// Saves the counter; it never goes back (ids are never reused).
    public func saveThemeStateRow(owner: String, nextThemeID: Int64, version: Int64) throws {
        try database.run("""
            INSERT INTO pattern_theme_state(owner, next_theme_id, version) VALUES (?, ?, ?)
            ON CONFLICT(owner) DO UPDATE SET next_theme_id = max(next_theme_id, excluded.next_theme_id), version = excluded.version
            """, [.text(owner), .int(nextThemeID), .int(version)])
    }
}
