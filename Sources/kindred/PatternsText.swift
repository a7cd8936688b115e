import KindredCLI
import KindredCore

/// What `kindred patterns` prints for people: refresh counts, findings ranked 1…N, one group with
/// its members' evidence in words and its corrections, themes.
extension PatternsCommand {
    static func printRefresh(_ r: JSONValue) {
        for line in RefreshSummary.lines(r) { Output.out(line) }
    }

    /// Findings ranked 1…N in the service's order (recurring first, then by records), each with its
    /// group id as an id; "in this period" only when a period was asked.
    static func printFindings(_ r: JSONValue, period: Bool) {
        let findings = r["findings"]?.arrayValue ?? []
        let eligible = r["eligibleRecords"]?.intValue ?? 0
        let total = r["total"]?.intValue ?? Int64(findings.count)
        Output.out("\(total) finding\(total == 1 ? "" : "s") over \(eligible) eligible record\(eligible == 1 ? "" : "s")"
            + (Int64(findings.count) < total ? ", the first \(findings.count) shown" : ""))
        if r["insufficientHistory"] == true { Output.out("Not enough history yet for a recurring pattern.") }
        for (rank, f) in findings.enumerated() {
            let title = f["label"]?.stringValue ?? f["description"]?.stringValue ?? ""
            let keywords = f["keywords"]?.arrayValue?.compactMap(\.stringValue) ?? []
            Output.out("")
            Output.out("\(rank + 1). \(title)" + (keywords.isEmpty ? "" : " — \(keywords.joined(separator: ", "))")
                + " [group \(f["groupId"]?.intValue ?? 0), \(f["kind"]?.stringValue ?? "")/\(f["category"]?.stringValue ?? "")]")
            var summary = f["summary"]?.stringValue ?? ""
            if !period, summary.hasSuffix(" in this period") { summary.removeLast(" in this period".count) }
            Output.out("  \(summary)")
            if let c = f["comparison"], c["suppressed"] == false, let trend = c["trend"]?.stringValue {
                Output.out("  \(trend): \(c["current"]?["records"]?.intValue ?? 0) of \(c["current"]?["eligible"]?.intValue ?? 0) now, "
                    + "\(c["previous"]?["records"]?.intValue ?? 0) of \(c["previous"]?["eligible"]?.intValue ?? 0) before")
            }
            for e in f["evidence"]?.arrayValue ?? [] {
                Output.out("  - \(e["date"]?.stringValue ?? "undated") \(e["recordId"]?.stringValue ?? ""): \"\(shorten(e["excerpt"]?.stringValue ?? "", 100))\"")
            }
            if let more = f["moreEvidence"]?.intValue, more > 0 { Output.out("  … and \(more) more record\(more == 1 ? "" : "s") (--evidence N or --all)") }
        }
        if let left = Optional(total - Int64(findings.count)), left > 0 {
            Output.out("")
            Output.out("… and \(left) more finding\(left == 1 ? "" : "s") (--limit N or --all)")
        }
    }

    /// `s` cut at a word boundary to at most `max` characters, with "…" when cut; on one line.
    static func shorten(_ s: String, _ max: Int) -> String {
        let flat = s.split(whereSeparator: { $0.isNewline }).joined(separator: " ")
        guard flat.count > max else { return flat }
        let head = flat.prefix(max - 1)
        let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
        return cut + "…"
    }

    /// How a member came into its group, in words ("automatic, similarity 0.76").
    static func source(_ m: JSONValue) -> String {
        switch m["source"]?.stringValue ?? "" {
        case "automatic":
            guard let score = m["score"]?.intValue else { return "automatic" }
            return "automatic, similarity " + RefreshSummary.hundredths((score + 50) / 100)
        case "pinned": return "pinned by a correction"
        case "moved": return "moved here by a correction"
        case "combined": return "came with a group combined into this one"
        case "judged":
            guard let score = m["score"]?.intValue else { return "confirmed by the judge" }
            return "confirmed by the judge, similarity " + RefreshSummary.hundredths((score + 50) / 100)
        case let other: return other
        }
    }

    static func printGroup(_ r: JSONValue) {
        guard let g = r["group"] else { return }
        let members = g["members"]?.arrayValue ?? []
        Output.out("group \(g["groupId"]?.intValue ?? 0) (\(g["category"]?.stringValue ?? ""), \(g["state"]?.stringValue ?? ""), version \(g["version"]?.intValue ?? 0))"
            + (g["mergedInto"]?.intValue.map { ", combined into group \($0)" } ?? ""))
        Output.out("label: \(g["label"]?.stringValue ?? g["description"]?.stringValue ?? "")")
        if let shared = g["sharedElement"]?.stringValue { Output.out("shared by its records: \"\(shared)\"") }
        Output.out("\(members.count) member\(members.count == 1 ? "" : "s") from \(g["records"]?.intValue ?? 0) record\(g["records"]?.intValue == 1 ? "" : "s"):")
        for m in members {
            Output.out("  - occurrence \(m["occurrenceId"]?.intValue ?? 0) (\(source(m))) \(m["recordId"]?.stringValue ?? "")"
                + " \(m["date"]?.stringValue ?? "undated"): \"\(shorten(m["excerpt"]?.stringValue ?? "", 100))\"")
        }
        if let t = r["theme"], t != .null {
            Output.out("theme \(t["themeId"]?.intValue ?? 0): \(t["label"]?.stringValue ?? "") (groups \((t["groups"]?.arrayValue ?? []).compactMap(\.intValue).map(String.init).joined(separator: ", ")))")
        }
        let corrections = r["corrections"]?.arrayValue ?? []
        if !corrections.isEmpty { Output.out("corrections:") }
        for c in corrections {
            Output.out("  correction \(c["correctionId"]?.intValue ?? 0): \(correctionWords(c, members: members))"
                + (c["undone"] == true ? " (undone)" : "") + (c["note"]?.stringValue.map { " — note: \"\($0)\"" } ?? ""))
        }
    }

    /// A correction in words with the members it names: "dismissed occurrence 41 (record d7) from group 3".
    static func correctionWords(_ c: JSONValue, members: [JSONValue]) -> String {
        let group = c["groupId"]?.intValue ?? 0
        func occurrence(_ id: Int64?) -> String {
            guard let id else { return "?" }
            let record = members.first { $0["occurrenceId"]?.intValue == id }?["recordId"]?.stringValue ?? dismissedRecord(c, members: members)
            return "occurrence \(id)" + (record.map { " (record \($0))" } ?? "")
        }
        switch c["kind"]?.stringValue ?? "" {
        case "dismiss": return "dismissed \(occurrence(c["occurrenceId"]?.intValue)) from group \(group)"
        case "pin": return "pinned \(occurrence(c["occurrenceId"]?.intValue)) in group \(group)"
        case "exclude": return "excluded \(occurrence(c["occurrenceId"]?.intValue)) from every group (it was in group \(group))"
        case "split":
            let out = (c["moveOut"]?.arrayValue ?? []).compactMap(\.intValue)
            let named = out.map { id in members.first { $0["occurrenceId"]?.intValue == id }?["recordId"]?.stringValue }
            // Moved out, they are no longer members: their records are the separated ones not in the group.
            let stayed = Set(members.compactMap { $0["recordId"]?.stringValue })
            let away = Set((c["separated"]?.arrayValue ?? []).flatMap { ($0.arrayValue ?? []).compactMap(\.stringValue) }).subtracting(stayed)
            if named.allSatisfy({ $0 == nil }), !away.isEmpty {
                return "split group \(group): moved out " + out.map { "occurrence \($0)" }.joined(separator: ", ")
                    + " (record\(away.count == 1 ? "" : "s") \(away.sorted().joined(separator: ", ")))"
            }
            return "split group \(group): moved out " + zip(out, named).map { id, record in
                "occurrence \(id)" + (record.map { " (record \($0))" } ?? "")
            }.joined(separator: ", ")
        case "merge": return "merged group \(c["fromGroupId"]?.intValue ?? 0) into group \(group)"
        case let other: return other
        }
    }

    /// The record a dismissal keeps apart from the others: the one in every pair it separates.
    static func dismissedRecord(_ c: JSONValue, members: [JSONValue]) -> String? {
        let pairs = (c["separated"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
        guard var common = pairs.first.map(Set.init) else { return nil }
        for p in pairs.dropFirst() { common.formIntersection(p) }
        if common.count > 1 { common.subtract(members.compactMap { $0["recordId"]?.stringValue }) }
        return common.count == 1 ? common.first : nil
    }

    static func printThemes(_ r: JSONValue, themesOn: Bool) {
        let themes = r["themes"]?.arrayValue ?? []
        let eligible = r["eligibleRecords"]?.intValue ?? 0
        let total = r["total"]?.intValue ?? Int64(themes.count)
        Output.out("\(total) theme\(total == 1 ? "" : "s") over \(eligible) eligible record\(eligible == 1 ? "" : "s")"
            + (Int64(themes.count) < total ? ", the first \(themes.count) shown" : ""))
        for t in themes {
            let groups = (t["groups"]?.arrayValue ?? []).compactMap(\.intValue).map { "group \($0)" }
            Output.out("")
            Output.out("theme \(t["themeId"]?.intValue ?? 0) [\(t["category"]?.stringValue ?? "")] \(t["label"]?.stringValue ?? "")")
            Output.out("  \(t["summary"]?.stringValue ?? "")")
            Output.out("  groups: \(groups.joined(separator: ", "))")
            for e in t["evidence"]?.arrayValue ?? [] {
                Output.out("  - group \(e["groupId"]?.intValue ?? 0): \(e["date"]?.stringValue ?? "undated") \(e["recordId"]?.stringValue ?? ""): \"\(shorten(e["excerpt"]?.stringValue ?? "", 100))\"")
            }
        }
        if !themesOn {
            Output.out("")
            Output.out(themes.isEmpty ? "Themes are off (patterns.themes is false), so no refresh has made any." :
                "Themes are off (patterns.themes is false): these were made by a refresh with them on, and later refreshes leave them as they are.")
            Output.out("To turn them on, refresh with "
                + "`kindred patterns refresh --set patterns.themes=true` (or set KINDRED_PATTERNS_THEMES=true, or \"themes\": true "
                + "under \"patterns\" in a --config file), then ask again.")
        }
    }
}
