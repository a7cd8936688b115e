import Dispatch
import Foundation
import JSONRPC
import KindredCore
import Service
import Synchronization

/// Keeps the owner's records in step with the notes of the workspace folders: one record per entry
/// (`NoteParser`), its id the file's path (relative to the first folder) and the entry's section,
/// its metadata the file and line range. Only what changed is written, each change at a higher
/// revision; the entries of a file that is gone are deleted, and an entry that turns up elsewhere
/// with the same text (a renamed file) keeps its id. The notes themselves are only read.
///
/// Every job runs on one serial queue, so a save waits for the indexing before it and the store
/// sees the files' changes in order; requests from the editor are answered meanwhile.
final class NotesIndexer: Sendable {
    /// The metadata key every record of a note has (its file): what tells them from other records.
    static let fileKey = "file"
    static let kind = "note"

    let service: KindredService
    let owner: String
    let folders: [NotesFolder]
    let table = EntryTable()
    let maxFileBytes: Int
    let log: @Sendable (LogType, String) -> Void
    private let queue = DispatchQueue(label: "kindred.lsp.index")
    /// Cancelled at close: every job stops at its next batch.
    let closing = CancellationToken()
    let refreshWanted = Atomic<Bool>(false)
    /// Files the editor said changed, not indexed yet.
    let changed = ChangedFiles()
    /// Unsaved texts of the editor's documents.
    let buffers: OpenBuffers
    /// Entries deleted in this session, whose ids a new entry of the same text takes back.
    let vanished = Mutex(Orphans())

    init(service: KindredService, owner: String, folders: [NotesFolder], maxFileBytes: Int, editDelay: Double = 0.3,
         log: @escaping @Sendable (LogType, String) -> Void) {
        self.buffers = OpenBuffers(delay: editDelay)
        self.service = service
        self.owner = owner
        self.folders = folders
        self.maxFileBytes = maxFileBytes
        self.log = log
    }

    /// Runs `job` after the jobs before it.
    func enqueue(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }

    /// Runs `job` after the jobs before it and returns its result.
    func run<T>(_ job: () throws -> T) rethrows -> T { try queue.sync(execute: job) }

    /// Indexes `paths` again, together, after the jobs queued before (or between files of the initial indexing,
    /// when it runs). The requests that arrive after this wait for it (`waitForChanges`).
    func filesChanged(_ paths: [String]) {
        for path in paths { changed.notice(path) }
        enqueue { [self] in indexChangedFiles() }
    }

    /// Indexes the files noticed as changed, if any.
    func indexChangedFiles() {
        guard !changed.isEmpty else { return }
        let (paths, upTo) = changed.take()
        indexFiles(paths)
        changed.finished(upTo: upTo)
    }

    /// Waits until the files noticed as changed before now are indexed, at most 10 s.
    func waitForChanges(_ ctx: RequestContext) {
        _ = changed.waitForNotices(timeout: 10) { ctx.isCancelled || closing.isCancelled }
    }

    /// Stops the running job at its next batch and waits for it.
    func close() {
        closing.cancel()
        queue.sync {}
    }

    // MARK: ids

    /// The folder that holds `path` as a note, and the path relative to it.
    func place(of path: String) -> (folder: Int, relative: String)? {
        for (i, f) in folders.enumerated() where f.holds(path) {
            if let r = f.relativePath(path) { return (i, r) }
        }
        return nil
    }

    /// A file's name in record ids and metadata: its path relative to the first folder; in another
    /// folder, that folder's name and the path in it (`work:plans.md`).
    func fileName(of path: String) -> String? {
        guard let (i, relative) = place(of: path) else { return nil }
        if i == 0 { return relative }
        return "\(folders[i].root.split(separator: "/").last ?? ""):\(relative)"
    }

    static func recordID(file: String, section: String?) -> String { section.map { "\(file)#\($0)" } ?? file }

    // MARK: reading

    /// The entries of one file (its unsaved text in the editor, if any, else the file), or nil
    /// (with a log message) when it cannot be indexed.
    func read(_ path: String, name: String) -> [NoteEntry]? {
        if let text = buffers.text(path) {
            guard text.utf8.count <= maxFileBytes else {
                log(.warning, "kindred: skipped \(name): \(text.utf8.count) bytes, more than the \(maxFileBytes) a note may have")
                return nil
            }
            return NoteParser.entries(text: text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text, fileName: name)
        }
        let size = (try? URL(fileURLWithPath: path).resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
        if size > maxFileBytes {
            log(.warning, "kindred: skipped \(name): \(size) bytes, more than the \(maxFileBytes) a note may have")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            log(.warning, "kindred: skipped \(name): it cannot be read")
            return nil
        }
        guard var text = String(validating: data, as: UTF8.self) else {
            log(.warning, "kindred: skipped \(name): it is not UTF-8 text")
            return nil
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        if text.contains("\0") {
            log(.warning, "kindred: skipped \(name): it holds NUL characters (not a text file)")
            return nil
        }
        return NoteParser.entries(text: text, fileName: name)
    }

    /// Whether `path` is there to index: an unsaved buffer or a file.
    func exists(_ path: String) -> Bool { buffers.text(path) != nil || FileManager.default.fileExists(atPath: path) }

    static func metadata(file: String, _ e: NoteEntry) -> JSONObject {
        var m: JSONObject = [fileKey: .string(file), "startLine": .from(e.startLine + 1), "endLine": .from(e.endLine + 1)]
        if let s = e.section { m["section"] = .string(s) }
        return m
    }

    static func record(id: String, revision: Int64, file: String, _ e: NoteEntry) -> JSONValue {
        var o: JSONObject = ["id": .string(id), "revision": .int(revision), "text": .string(e.text), "kind": .string(e.kind ?? kind),
                             "metadata": .object(metadata(file: file, e))]
        if let d = e.date { o["date"] = .string(d) }
        return .object(o)
    }

    /// An indexed entry as the record it was written as.
    static func record(of e: IndexedEntry, file: String) -> Record {
        Record(id: e.id, revision: e.revision, text: e.entry.text, kind: e.entry.kind ?? kind, date: e.entry.date, metadata: metadata(file: file, e.entry))
    }

    /// Whether the stored record already says what the entry says.
    static func same(_ stored: Record, file: String, _ e: NoteEntry) -> Bool {
        func dict(_ o: JSONObject) -> [String: JSONValue] { Dictionary(o.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        return stored.text == e.text && stored.date == e.date && stored.kind == (e.kind ?? kind) && dict(stored.metadata) == dict(metadata(file: file, e))
    }

    // MARK: writing

    /// One entry to be in the store: `write` is nil when the stored record already says it.
    struct Planned {
        var indexed: IndexedEntry
        var write: JSONValue?
    }

    /// The plan for one file's entries. An entry keeps the id of the record at its place (`existing`:
    /// the file's record of that section), else takes an orphan's of the same text (a renamed file,
    /// a moved section), else gets `file#section` (`@2`, `@3`… after it when a renamed file's entry holds that id).
    func plan(path: String, file: String, entries: [NoteEntry], existing: (String?) -> Record?, orphans: inout Orphans,
              taken: (String) -> Bool) -> [Planned] {
        entries.map { e in
            if let s = existing(e.section) {
                if Self.same(s, file: file, e) { return Planned(indexed: IndexedEntry(id: s.id, path: path, entry: e, revision: s.revision), write: nil) }
                return planned(id: s.id, revision: s.revision + 1, path: path, file: file, e)
            }
            if let o = orphans.take(text: e.text) ?? vanished.withLock({ $0.take(text: e.text) }) {
                return planned(id: o.id, revision: o.revision + 1, path: path, file: file, e)
            }
            let base = Self.recordID(file: file, section: e.section)
            var id = base, n = 1
            while taken(id) {
                n += 1
                id = base + "@\(n)"
            }
            // An orphan at that id (its text changed as well) is this entry now.
            let revision = orphans.take(id: id).map { $0.revision + 1 } ?? vanished.withLock { $0.take(id: id) }.map { $0.revision + 1 } ?? 1
            return planned(id: id, revision: revision, path: path, file: file, e)
        }
    }

    private func planned(id: String, revision: Int64, path: String, file: String, _ e: NoteEntry) -> Planned {
        Planned(indexed: IndexedEntry(id: id, path: path, entry: e, revision: revision), write: Self.record(id: id, revision: revision, file: file, e))
    }

    /// Writes the planned records; a record refused as `stale` or `conflict` (an id deleted at a
    /// higher revision, or written by another process) is written again above the revision the store
    /// holds. Returns each id's revision as written. With `waitForIndex`, returns once they are searchable.
    func write(_ planned: [Planned], waitForIndex: Bool, _ ctx: RequestContext) throws(ResponseError) -> [String: Int64] {
        var revisions: [String: Int64] = [:]
        var records = planned.compactMap(\.write)
        for _ in 0..<2 where !records.isEmpty {
            let params: JSONValue = ["owner": .string(owner), "records": .array(records), "waitForIndex": .bool(waitForIndex)]
            let (answer, later) = try service.callAnsweringLater("records/upsert", params, context: ctx)
            let result = try later?() ?? answer
            var again: [JSONValue] = []
            for (r, sent) in zip(result["results"]?.arrayValue ?? [], records) {
                guard let id = r["id"]?.stringValue, let revision = r["revision"]?.intValue else { continue }
                switch r["status"]?.stringValue {
                case "stale"?, "conflict"?:
                    guard case .object(var o) = sent else { continue }
                    o["revision"] = .int(revision + 1)
                    again.append(.object(o))
                    revisions[id] = revision + 1
                default:
                    revisions[id] = revision
                }
            }
            records = again
        }
        return revisions
    }

    func delete(_ ids: [String], _ ctx: RequestContext) throws(ResponseError) {
        guard !ids.isEmpty else { return }
        _ = try service.call("records/delete", ["owner": .string(owner), "ids": .from(ids)], context: ctx)
    }

    static func context(_ method: String, token: CancellationToken) -> RequestContext {
        RequestContext(id: .string("kindred-lsp"), method: method, token: token)
    }
}
