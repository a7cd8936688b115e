import JSONRPC
import KindredCore
import Service

/// The editor's questions, answered from the entries' table and the service: a search as workspace
/// symbols, the entries nearest the one under the cursor as references, its patterns as a hover,
/// the file's entries as document symbols.
struct EditorRequests: Sendable {
    let service: KindredService
    let owner: String
    let table: EntryTable
    /// How many hits a workspace symbol search and a references request give.
    var limit = 20

    // MARK: workspace/symbol

    func workspaceSymbols(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        guard case .string(let query)? = params?["query"] else {
            throw ResponseError.invalidParams(field: "query", reason: "is required: the text to search the notes for (a string)")
        }
        // An editor asks with an empty query when its symbol list opens: there is nothing to look for yet.
        guard !query.allSatisfy(\.isWhitespace) else { return [] }
        let found = try service.call("search/query", ["owner": .string(owner), "text": .string(query), "limit": .from(limit)], context: ctx)
        return .array((found["results"]?.arrayValue ?? []).compactMap { hit in
            guard let id = hit["id"]?.stringValue, let e = table.entry(id: id) else { return nil }
            let passage = hit["passage"]
            let range: JSONValue
            if let start = passage?["start"]?.intValue, let end = passage?["end"]?.intValue, start <= end {
                range = LSPValues.range(of: e, scalars: Int(start)..<Int(end))
            } else {
                range = LSPValues.range(of: e)
            }
            return ["name": .string(LSPValues.oneLine(passage?["text"]?.stringValue ?? e.entry.text)), "kind": .from(SymbolKind.string),
                    "containerName": .string(e.entry.title), "location": LSPValues.location(e, range: range)]
        })
    }

    // MARK: textDocument/references

    func references(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        guard let e = try entryAtPosition(params) else { return [] }
        var out: [JSONValue] = []
        if params?["context"]?["includeDeclaration"]?.boolValue == true { out.append(LSPValues.location(e, range: LSPValues.range(of: e))) }
        let similar = try service.call("search/similar", ["owner": .string(owner), "id": .string(e.id), "limit": .from(limit)], context: ctx)
        for hit in similar["results"]?.arrayValue ?? [] {
            guard let id = hit["id"]?.stringValue, let other = table.entry(id: id) else { continue }
            out.append(LSPValues.location(other, range: LSPValues.range(of: other)))
        }
        return .array(out)
    }

    // MARK: textDocument/hover

    func hover(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        guard let e = try entryAtPosition(params) else { return .null }
        let findings = try service.call("patterns/findings", ["owner": .string(owner), "includeRelated": true], context: ctx)
        var parts: [String] = []
        for f in findings["findings"]?.arrayValue ?? [] {
            let evidence = f["evidence"]?.arrayValue ?? []
            guard evidence.contains(where: { $0["recordId"]?.stringValue == e.id }) else { continue }
            let label = f["label"]?.stringValue ?? f["generatedLabel"]?.stringValue ?? f["description"]?.stringValue ?? "a pattern"
            let records = f["records"]?.intValue ?? Int64(evidence.count), eligible = f["eligible"]?.intValue ?? 0
            let recurs = f["kind"]?.stringValue == "related" ? "related" : "recurs"
            var text = "**\(recurs): \(Self.markdownEscaped(label))** · \(records) of \(eligible) entries"
            let others = evidence.compactMap { $0["recordId"]?.stringValue }.filter { $0 != e.id }.compactMap { table.entry(id: $0) }
            if !others.isEmpty {
                let links = others.prefix(12).map { o in "[\(Self.markdownEscaped(o.entry.title))](\(FileURI.uri(o.path))#L\(o.entry.startLine + 1))" }
                text += "\n\n" + links.joined(separator: " · ") + (others.count > 12 ? " · and \(others.count - 12) more" : "")
            }
            parts.append(text)
        }
        guard !parts.isEmpty else { return .null }
        return ["contents": ["kind": "markdown", "value": .string(parts.joined(separator: "\n\n---\n\n"))], "range": LSPValues.range(of: e)]
    }

    // MARK: textDocument/documentSymbol

    func documentSymbols(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        let path = try documentPath(params)
        return .array(table.entries(inFile: path).map { e in
            [
                "name": .string(e.entry.title.isEmpty ? (e.entry.date ?? e.id) : e.entry.title),
                "detail": .string(LSPValues.oneLine(e.entry.text, limit: 80)),
                "kind": .from(e.entry.date != nil ? SymbolKind.event : SymbolKind.string),
                "range": LSPValues.range(of: e),
                // Where the editor puts the cursor: the start of the entry's first line (its heading).
                "selectionRange": LSPValues.range((e.entry.startLine, 0), (e.entry.startLine, 0)),
            ]
        })
    }

    // MARK: positions

    func documentPath(_ params: JSONValue?) throws(ResponseError) -> String {
        guard case .string(let uri)? = params?["textDocument"]?["uri"] else {
            throw ResponseError.invalidParams(field: "textDocument.uri", reason: "is required: the document's URI (a string)")
        }
        guard let path = FileURI.path(uri) else {
            throw ResponseError.invalidParams(field: "textDocument.uri", reason: "must be a file: URI, got '\(uri)'")
        }
        return NotesFolder.standardized(path)
    }

    /// The entry whose lines hold the request's `position`, or nil between entries.
    func entryAtPosition(_ params: JSONValue?) throws(ResponseError) -> IndexedEntry? {
        let path = try documentPath(params)
        guard case .int(let line)? = params?["position"]?["line"], line >= 0 else {
            throw ResponseError.invalidParams(field: "position.line", reason: "is required: a line number from 0")
        }
        return table.entry(at: path, line: Int(line))
    }

    static func markdownEscaped(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\`*_[]<>#|".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}

/// The LSP `SymbolKind`s entries are shown as.
enum SymbolKind {
    static let string = 15
    static let event = 24
}
