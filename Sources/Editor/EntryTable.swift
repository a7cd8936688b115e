import Synchronization

/// An entry as it was last written to the store: its record id, file and revision.
struct IndexedEntry: Sendable, Equatable {
    let id: String
    /// The file's absolute path.
    let path: String
    let entry: NoteEntry
    let revision: Int64
}

/// The entries of every indexed file, by file and by record id: what the editor's requests map
/// positions and search hits through. Changed a file at a time, read from any thread.
final class EntryTable: Sendable {
    private struct State {
        var byFile: [String: [IndexedEntry]] = [:]
        var byID: [String: IndexedEntry] = [:]
    }
    private let state = Mutex(State())

    /// Replaces what `path` holds (nothing, when `entries` is empty).
    func replace(file path: String, with entries: [IndexedEntry]) {
        state.withLock { s in
            for old in s.byFile[path] ?? [] { s.byID[old.id] = nil }
            s.byFile[path] = entries.isEmpty ? nil : entries.sorted { $0.entry.startLine < $1.entry.startLine }
            for e in entries { s.byID[e.id] = e }
        }
    }

    func entries(inFile path: String) -> [IndexedEntry] { state.withLock { $0.byFile[path] ?? [] } }
    func entry(id: String) -> IndexedEntry? { state.withLock { $0.byID[id] } }
    var files: [String] { state.withLock { Array($0.byFile.keys) } }
    var count: Int { state.withLock { $0.byID.count } }

    /// The entry whose lines hold `line` of `path`; between entries, none.
    func entry(at path: String, line: Int) -> IndexedEntry? {
        entries(inFile: path).first { $0.entry.startLine <= line && line <= $0.entry.endLine }
    }
}
