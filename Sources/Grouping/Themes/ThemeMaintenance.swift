import LinearAlgebra

/// Theme upkeep before the rule runs: members that stopped being items leave, corrections in force
/// are enforced, states and geometry brought up to date.
extension ThemeWorkspace {
    /// Members that stopped being items leave (a combined group hands its place to the survivor);
    /// corrections in force are enforced; states and geometry are brought up to date.
    mutating func maintain() {
        // Decided memberships (pin, split, merge) first.
        for (g, d) in constraints.decided.sorted(by: { $0.key < $1.key }) {
            let t = d.theme, source = d.source
            guard var th = state.themes[t], !th.dismissed, th.mergedInto == nil, profiles[g] != nil,
                  groups.groups[g]?.scope == th.scope else { continue }
            if let current = themeOf[g] {
                if current == t {
                    if th.member(g)!.source != source {
                        th.members = th.members.map { $0.groupID == g ? ThemeMember(groupID: g, source: source) : $0 }
                        state.themes[t] = th
                        touch(t)
                    }
                    continue
                }
                removeMember(g, from: current)
            }
            addMember(g, to: t, source: source)
        }
        for id in state.themes.keys.sorted() {
            var th = state.themes[id]!
            var members: [ThemeMember] = []
            var dirty = false
            for m in th.members {
                var gid = m.groupID
                if profiles[gid] == nil {
                    dirty = true
                    // A group combined into another: the survivor takes its place if it has none.
                    var seen = Set<Int64>()
                    while let next = groups.groups[gid]?.mergedInto, seen.insert(gid).inserted { gid = next }
                    guard gid != m.groupID, profiles[gid] != nil, themeOf[gid] == nil, groups.groups[gid]?.scope == th.scope,
                          !members.contains(where: { $0.groupID == gid }) else {
                        themeOf[m.groupID] = nil
                        continue
                    }
                    themeOf[m.groupID] = nil
                    themeOf[gid] = id
                }
                if th.dismissed || th.mergedInto != nil || constraints.cannotJoin.contains(GroupThemePair(group: gid, theme: id))
                    || (constraints.decided[gid].map { $0.theme != id } ?? false) {
                    dirty = true
                    if themeOf[gid] == id { themeOf[gid] = nil }
                    continue
                }
                members.append(ThemeMember(groupID: gid, source: m.source))
            }
            // A pair kept apart by a correction: the later automatic member leaves.
            var kept: [ThemeMember] = []
            for m in members.sorted(by: { ($0.source.isUserDecided ? 0 : 1, $0.groupID) < ($1.source.isUserDecided ? 0 : 1, $1.groupID) }) {
                if kept.allSatisfy({ constraints.mayShare($0.groupID, m.groupID) }) || m.source.isUserDecided {
                    kept.append(m)
                } else {
                    dirty = true
                    if themeOf[m.groupID] == id { themeOf[m.groupID] = nil }
                }
            }
            kept.sort { $0.groupID < $1.groupID }
            if dirty || kept != th.members {
                th.members = kept
                state.themes[id] = th
                touch(id)
            }
        }
        for id in state.themes.keys.sorted() { settle(id) }
    }

    mutating func removeMember(_ g: Int64, from t: Int64) {
        guard var th = state.themes[t] else { return }
        th.members.removeAll { $0.groupID == g }
        state.themes[t] = th
        themeOf[g] = nil
        touch(t)
    }

    mutating func addMember(_ g: Int64, to t: Int64, source: ThemeMemberSource) {
        guard var th = state.themes[t] else { return }
        th.members.append(ThemeMember(groupID: g, source: source))
        th.members.sort { $0.groupID < $1.groupID }
        state.themes[t] = th
        themeOf[g] = t
        touch(t)
    }

    /// State, representative and examples of a theme from its members.
    mutating func settle(_ id: Int64) {
        guard var th = state.themes[id] else { return }
        let ids = th.groupIDs.filter { profiles[$0] != nil }
        var rep: Int64?
        var best: Float = -.infinity
        for a in ids {
            var s: Float = 0
            for b in ids where b != a { s += sim(a, b) }
            if s > best { best = s; rep = a }
        }
        var examples: [Int64] = []
        if let rep {
            let others = ids.filter { $0 != rep }.map { (id: $0, s: sim(rep, $0)) }.sorted { ($0.s, -$0.id) > ($1.s, -$1.id) }
            examples = [rep] + others.prefix(max(0, config.examples - 1)).map(\.id)
        }
        let st: GroupState = ids.count >= 2 && !th.dismissed && th.mergedInto == nil ? .active : .dormant
        if th.representative != rep || th.examples != examples || th.state != st {
            touch(id)
            th.representative = rep
            th.examples = examples
            th.state = st
            state.themes[id] = th
        }
    }
}
