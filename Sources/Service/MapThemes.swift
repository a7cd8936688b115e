import Grouping
import JSONRPC
import KindredCore
import Pictures

/// The themes of `patterns/map`: which drawn groups share a theme, and how they are drawn together.
extension KindredService {
    /// The active themes holding at least two of `groups` (the groups drawn), with their labels.
    func mapThemes(owner: String, groups: [Int64], data: PictureData) throws(ResponseError) -> [PatternMap.ThemeMark] {
        let themes = try withPatternReader(owner: owner) { try loadThemes($0, owner: owner) }
        let drawn = Set(groups)
        let labels = ThemeEngine.labels(themes: themes.state, groups: data.patterns.state, occurrences: data.patterns.occurrences,
                                        config: themeConfig)
        return themes.state.sortedThemes.compactMap { t in
            guard t.state == .active, !t.dismissed else { return nil }
            let inside = t.groupIDs.filter(drawn.contains)
            guard inside.count >= 2 else { return nil }
            return PatternMap.ThemeMark(id: t.id, label: labels[t.id]?.text ?? "theme \(t.id)", groups: inside)
        }
    }

    /// Each theme's groups moved halfway towards their mean position, so that they are drawn
    /// together (their order along both axes is kept within the theme).
    static func gather(_ marks: [PatternMap.Mark], _ themes: [PatternMap.ThemeMark]) -> [PatternMap.Mark] {
        var out = marks
        for t in themes {
            let idx = out.indices.filter { t.groups.contains(out[$0].id) }
            guard idx.count >= 2 else { continue }
            let mx = idx.map { out[$0].x }.reduce(0, +) / Double(idx.count)
            let my = idx.map { out[$0].y }.reduce(0, +) / Double(idx.count)
            for i in idx {
                out[i].x = mx + (out[i].x - mx) * 0.5
                out[i].y = my + (out[i].y - my) * 0.5
            }
        }
        return out
    }
}
