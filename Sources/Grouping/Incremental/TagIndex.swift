/// Per scope, the groups with a representative that hold a member with each tag: the tag part of
/// a pending occurrence's candidates ("groups sharing a tag ∪ top-K", README Rules). Kept across
/// assignment calls and refreshes (`EngineCache`) and brought up to date from the groups touched
/// since (`Workspace.touchLog`), instead of being gathered again from every member of the scope
/// whenever a tagged occurrence is evaluated.
struct TagIndex {
    let scope: Scope
    private(set) var groups: [String: Set<Int64>] = [:]
    private var tagsOf: [Int64: Set<String>] = [:]
    /// The `touchLog` position it is current at.
    var at: Int

    /// From `live`, the scope's groups with a representative, as `state` holds them.
    init(_ scope: Scope, live: [Int64], _ state: PatternState, _ occurrences: [Int64: Occurrence], at: Int) {
        self.scope = scope
        self.at = at
        for gid in live { set(gid, state, occurrences) }
    }

    /// Group `gid` as `state` holds it now.
    mutating func set(_ gid: Int64, _ state: PatternState, _ occurrences: [Int64: Occurrence]) {
        var tags = Set<String>()
        if let g = state.groups[gid], g.medoid != nil {
            for m in g.members { for t in occurrences.tagsOf(m.occurrenceID) ?? [] { tags.insert(t) } }
        }
        for t in tagsOf[gid] ?? [] where !tags.contains(t) { groups[t]?.remove(gid) }
        for t in tags { groups[t, default: []].insert(gid) }
        tagsOf[gid] = tags.isEmpty ? nil : tags
    }

    /// Brings in the groups of the scope touched since `at`.
    mutating func update(_ touchLog: [(at: Int, gid: Int64)], _ state: PatternState, _ occurrences: [Int64: Occurrence]) {
        guard at < touchLog.count else { return }
        for gid in Set(touchLog[at...].map(\.gid)) where tagsOf[gid] != nil || state.groups[gid].map({ $0.scope == scope }) == true {
            set(gid, state, occurrences)
        }
        at = touchLog.count
    }
}
