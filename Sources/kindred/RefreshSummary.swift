import KindredCore

/// The text `kindred patterns refresh` prints: what a refresh counted, in numbers that add up.
enum RefreshSummary {
    /// 24 → "0.24".
    static func hundredths(_ x: Int64) -> String {
        let s = String(abs(x) % 100)
        return (x < 0 ? "-" : "") + "\(abs(x) / 100)." + (s.count == 1 ? "0" + s : s)
    }

    static func lines(_ r: JSONValue) -> [String] {
        func n(_ k: String) -> Int64 { r[k]?.intValue ?? 0 }
        func plural(_ count: Int64, _ word: String) -> String { "\(count) \(word)\(count == 1 ? "" : "s")" }
        var out = [
            "\(plural(n("recordsGrouped"), "record")) grouped into \(plural(n("activeGroups"), "pattern group"))"
                + " (this refresh: \(n("groupsCreated")) created, \(n("groupsChanged")) changed, \(n("groupsDormant")) now dormant)",
            "\(plural(n("occurrences"), "occurrence")): \(n("occurrencesInGroups")) in groups, \(n("pending")) pending"
                + " (not close enough to a group or to other records yet)",
            "placed by this refresh: \(plural(n("placed"), "occurrence")) that were in no group, \(n("seeded")) of them in groups it created;"
                + " \(n("evicted")) left their group",
        ]
        if n("waitingForEmbedder") > 0 {
            out.append("\(plural(n("waitingForEmbedder"), "occurrence")) not counted above: waiting for the embedder (no vector yet)")
        }
        for c in r["backgroundLevels"]?.arrayValue ?? [] {
            let level = c["level"]?.intValue ?? 0, previous = c["previous"]?.intValue
            out.append("background similarity of \(c["category"]?.stringValue ?? "?") is now \(hundredths(level))"
                + (previous.map { " (was \(hundredths($0)))" } ?? "") + ": its grouping thresholds follow it")
        }
        out.append("took \(n("durationMs")) ms")
        return out
    }
}
