import JSONRPC
import KindredCore

/// Shows a pattern's entries in the editor with what every LSP client has: a message whose actions
/// are the entries (`window/showMessageRequest`), then the chosen one opened at its lines
/// (`window/showDocument`, when the client supports it).
struct EntryPicker {
    let server: Server
    /// The most actions offered (a message's buttons or a picker's lines).
    static let maxEntries = 30

    func show(_ finding: JSONValue) {
        let entries = (finding["entries"]?.arrayValue ?? []).prefix(Self.maxEntries)
        guard !entries.isEmpty else { return }
        let titles = entries.enumerated().map { i, e in "\(i + 1). " + (e["title"]?.stringValue ?? e["id"]?.stringValue ?? "") }
        let records = finding["records"]?.intValue ?? Int64(entries.count)
        let label = finding["label"]?.stringValue ?? "a pattern"
        let recurs = finding["kind"]?.stringValue == "related" ? "related" : "recurs"
        let more = records > Int64(entries.count) ? " (the first \(entries.count))" : ""
        let params: JSONValue = ["type": .int(Int64(LogType.info.rawValue)), "message": .string("\(recurs): \(label) · \(records) entries\(more)"),
                                 "actions": .array(titles.map { ["title": .string($0)] })]
        guard case .result(let chosen) = server.request("window/showMessageRequest", params, timeout: 3600, isCancelled: { false }),
              let title = chosen["title"]?.stringValue, let i = titles.firstIndex(of: title) else { return }
        guard server.clientCapabilities?["window"]?["showDocument"]?["support"]?.boolValue == true else { return }
        let e = entries[entries.startIndex + i]
        _ = server.request("window/showDocument", ["uri": e["uri"] ?? .null, "takeFocus": true, "selection": e["range"] ?? .null],
                           timeout: 60, isCancelled: { false })
    }
}
