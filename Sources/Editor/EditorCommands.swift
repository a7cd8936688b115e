import JSONRPC
import KindredCore
import Service

/// The commands of `workspace/executeCommand` that read or correct the patterns and search, and
/// the code lenses that call them. Each takes one object of arguments (or none); an unknown or
/// malformed field is refused, naming it (`arguments[0].groupId`).
extension EditorRequests {
    /// The owner's findings with the entries each holds, as the editor lists them.
    func findingsCommand(_ args: CommandArguments, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        try args.only(["groupId", "kind", "show"])
        _ = try args.bool("show")
        let groupId = try args.int("groupId")
        var params: JSONObject = ["owner": .string(owner), "includeRelated": true]
        if let kind = try args.string("kind") { params["kinds"] = [.string(kind)] }
        let found = try service.call("patterns/findings", .object(params), context: ctx)
        var out: [JSONValue] = []
        for f in found["findings"]?.arrayValue ?? [] where groupId == nil || f["groupId"]?.intValue == groupId.map(Int64.init) {
            let entries: [JSONValue] = (f["evidence"]?.arrayValue ?? []).compactMap { ev in
                guard let id = ev["recordId"]?.stringValue, let e = table.entry(id: id) else { return nil }
                return entryValue(e)
            }
            out.append(["groupId": f["groupId"] ?? .null, "label": .string(Self.label(f)), "kind": f["kind"] ?? .null,
                        "records": f["records"] ?? .null, "eligible": f["eligible"] ?? .null, "summary": f["summary"] ?? .null,
                        "entries": .array(entries)])
        }
        if let groupId, out.isEmpty {
            throw ResponseError.invalidParams(field: args.field("groupId"), reason: "no pattern \(groupId) is found now (kindred.findings lists them)")
        }
        return ["eligible": found["eligibleRecords"] ?? .null, "findings": .array(out)]
    }

    /// "This entry is not part of that pattern": a `dismiss` correction of the entry's occurrence in
    /// the group, kept by every later refresh (`patterns/undoCorrection` undoes it).
    func dismissCommand(_ args: CommandArguments, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        try args.only(["groupId", "id", "uri", "line", "note"])
        guard let groupId = try args.int("groupId") else {
            throw ResponseError.invalidParams(field: args.field("groupId"), reason: "is required: the pattern's group id (from its code lens or kindred.findings)")
        }
        let entry: IndexedEntry
        if let id = try args.string("id") {
            guard try args.string("uri") == nil, try args.int("line") == nil else {
                throw ResponseError.invalidParams(field: args.field("uri"), reason: "give the entry by id or by uri and line, not both")
            }
            guard let e = table.entry(id: id) else { throw ResponseError.invalidParams(field: args.field("id"), reason: "no entry has the id '\(id)'") }
            entry = e
        } else {
            guard let uri = try args.string("uri"), let line = try args.int("line") else {
                throw ResponseError.invalidParams(field: args.field("id"), reason: "is required (or uri and line): the entry that is not part of the pattern")
            }
            guard let path = FileURI.path(uri) else { throw ResponseError.invalidParams(field: args.field("uri"), reason: "must be a file: URI, got '\(uri)'") }
            guard let e = table.entry(at: NotesFolder.standardized(path), line: Int(line)) else {
                throw ResponseError.invalidParams(field: args.field("line"), reason: "no entry holds line \(line) of \(uri)")
            }
            entry = e
        }
        let note = try args.string("note")
        let found = try service.call("patterns/findings", ["owner": .string(owner), "includeRelated": true], context: ctx)
        guard let finding = found["findings"]?.arrayValue?.first(where: { $0["groupId"]?.intValue == Int64(groupId) }) else {
            throw ResponseError.invalidParams(field: args.field("groupId"), reason: "no pattern \(groupId) is found now (kindred.findings lists them)")
        }
        guard let occurrence = finding["evidence"]?.arrayValue?.first(where: { $0["recordId"]?.stringValue == entry.id })?["occurrenceId"] else {
            throw ResponseError.invalidParams(field: args.field("groupId"), reason: "the entry \(entry.id) is not part of pattern \(groupId)")
        }
        var correction: JSONObject = ["kind": "dismiss", "groupId": .from(groupId), "occurrenceId": occurrence]
        if let note { correction["note"] = .string(note) }
        var answer = try service.call("patterns/correct", ["owner": .string(owner), "correction": .object(correction)], context: ctx).objectValue ?? [:]
        answer["id"] = .string(entry.id)
        return .object(answer)
    }

    /// A search with its mode (`hybrid`, `semantic`, `keyword`) and the entries' kind (a front
    /// matter's `kind:`; `note` otherwise).
    func searchCommand(_ args: CommandArguments, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        try args.only(["query", "mode", "kind", "limit"])
        guard let query = try args.string("query") else {
            throw ResponseError.invalidParams(field: args.field("query"), reason: "is required: the text to search the notes for")
        }
        var params: JSONObject = ["owner": .string(owner), "text": .string(query), "limit": .from(try args.int("limit") ?? limit)]
        if let mode = try args.string("mode") {
            guard ["hybrid", "semantic", "keyword"].contains(mode) else {
                throw ResponseError.invalidParams(field: args.field("mode"), reason: "must be hybrid, semantic or keyword, got '\(mode)'")
            }
            params["mode"] = .string(mode)
        }
        if let kind = try args.string("kind") { params["filters"] = ["kinds": [.string(kind)]] }
        let found: JSONValue
        do { found = try service.call("search/query", .object(params), context: ctx) } catch {
            // The service names its own field; the editor's is the argument.
            if let field = error.data?["field"]?.stringValue, field == "limit" {
                throw ResponseError.invalidParams(field: args.field("limit"), reason: error.data?["reason"]?.stringValue ?? error.message)
            }
            throw error
        }
        let hits: [JSONValue] = (found["results"]?.arrayValue ?? []).compactMap { hit in
            guard let id = hit["id"]?.stringValue, let e = table.entry(id: id) else { return nil }
            guard case .object(var o) = entryValue(e) else { return nil }
            o["score"] = hit["score"] ?? .null
            if let start = hit["passage"]?["start"]?.intValue, let end = hit["passage"]?["end"]?.intValue, start <= end {
                o["passage"] = ["text": hit["passage"]?["text"] ?? .null, "range": LSPValues.range(of: e, scalars: Int(start)..<Int(end))]
            }
            return .object(o)
        }
        var out: JSONObject = ["mode": found["mode"] ?? .null, "hits": .array(hits)]
        if let degraded = found["degraded"] { out["degraded"] = degraded }
        return .object(out)
    }

    // MARK: textDocument/codeLens

    /// On each entry of the file, a lens per pattern that holds it: "recurs: <label> · 5 entries"
    /// (`kindred.findings` for that group lists them, and shows the list in the editor), then "not
    /// part of it" (`kindred.dismiss`).
    func codeLenses(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        let entries = table.entries(inFile: try documentPath(params))
        guard !entries.isEmpty else { return [] }
        let ids = Set(entries.map(\.id))
        let found = try service.call("patterns/findings", ["owner": .string(owner), "includeRelated": true], context: ctx)
        var byEntry: [String: [JSONValue]] = [:]
        for f in found["findings"]?.arrayValue ?? [] {
            for ev in f["evidence"]?.arrayValue ?? [] {
                if let id = ev["recordId"]?.stringValue, ids.contains(id) { byEntry[id, default: []].append(f) }
            }
        }
        var out: [JSONValue] = []
        for e in entries {
            let line = LSPValues.range((e.entry.startLine, 0), (e.entry.startLine, 0))
            for f in byEntry[e.id] ?? [] {
                let groupId = f["groupId"] ?? .null
                let recurs = f["kind"]?.stringValue == "related" ? "related" : "recurs"
                out.append(["range": line, "command": ["title": .string("\(recurs): \(Self.label(f)) · \(f["records"]?.intValue ?? 0) entries"),
                                                       "command": "kindred.findings", "arguments": [["groupId": groupId, "show": true]]]])
                out.append(["range": line, "command": ["title": "not part of it", "command": "kindred.dismiss",
                                                       "arguments": [["groupId": groupId, "id": .string(e.id)]]]])
            }
        }
        return .array(out)
    }

    /// An entry as commands answer it: id, title, date, kind and where it is.
    func entryValue(_ e: IndexedEntry) -> JSONValue {
        ["id": .string(e.id), "title": .string(e.entry.title), "date": .from(e.entry.date), "kind": .string(e.entry.kind ?? NotesIndexer.kind),
         "uri": .string(FileURI.uri(e.path)), "range": LSPValues.range(of: e)]
    }

    static func label(_ f: JSONValue) -> String {
        f["label"]?.stringValue ?? f["generatedLabel"]?.stringValue ?? f["description"]?.stringValue ?? "a pattern"
    }
}

/// A command's `arguments`: none, or one object whose fields are read by name.
struct CommandArguments {
    let fields: JSONObject

    init(_ arguments: JSONValue?) throws(ResponseError) {
        guard let arguments, !arguments.isNull else { fields = [:]; return }
        guard let list = arguments.arrayValue else { throw ResponseError.invalidParams(field: "arguments", reason: "must be an array (of one object)") }
        guard list.count <= 1 else { throw ResponseError.invalidParams(field: "arguments", reason: "must hold one object, got \(list.count) items") }
        guard let first = list.first else { fields = [:]; return }
        guard let o = first.objectValue else { throw ResponseError.invalidParams(field: "arguments[0]", reason: "must be an object, got \(first.typeName)") }
        fields = o
    }

    func field(_ name: String) -> String { "arguments[0].\(name)" }

    func only(_ known: [String]) throws(ResponseError) {
        for key in fields.keys where !known.contains(key) {
            throw ResponseError.invalidParams(field: field(key), reason: "is not an argument of this command (arguments: \(known.joined(separator: ", ")))")
        }
    }

    func string(_ name: String) throws(ResponseError) -> String? {
        guard let v = fields[name], !v.isNull else { return nil }
        guard let s = v.stringValue, !s.isEmpty else { throw ResponseError.invalidParams(field: field(name), reason: "must be a non-empty string, got \(v.typeName)") }
        return s
    }

    func bool(_ name: String) throws(ResponseError) -> Bool? {
        guard let v = fields[name], !v.isNull else { return nil }
        guard let b = v.boolValue else { throw ResponseError.invalidParams(field: field(name), reason: "must be true or false, got \(v.typeName)") }
        return b
    }

    func int(_ name: String) throws(ResponseError) -> Int? {
        guard let v = fields[name], !v.isNull else { return nil }
        guard case .int(let n) = v else { throw ResponseError.invalidParams(field: field(name), reason: "must be an integer, got \(v.typeName)") }
        return Int(n)
    }
}
