import Dispatch
import Foundation
import JSONRPC
import KindredCore
import Service

/// What one indexing of the workspace did.
struct IndexSummary: Sendable {
    var files = 0
    var entries = 0
    var written = 0
    var unchanged = 0
    var deleted = 0
    var skipped = 0
    var cancelled = false
    var seconds = 0.0

    var description: String {
        let rate = seconds > 0 ? String(Int((Double(entries) / seconds).rounded())) : "—"
        return "\(entries) entries in \(files) files (\(written) written, \(unchanged) unchanged, \(deleted) deleted, \(skipped) files skipped)"
            + " in \(String(format: "%.1f", seconds)) s, \(rate) entries/s" + (cancelled ? "; cancelled" : "")
    }
}

extension NotesIndexer {
    /// Indexes every note of the folders: writes what changed in batches, deletes the entries of
    /// files that are gone, waits until the written entries are searchable, then refreshes the
    /// owner's patterns. Reports progress through `progress`; `token` stops it between batches.
    func indexAll(progress: WorkDoneProgress?, token: CancellationToken) -> IndexSummary {
        let started = DispatchTime.now()
        var summary = IndexSummary()
        let ctx = Self.context("records/upsert", token: token)
        progress?.begin("Indexing notes", message: "looking for notes", cancellable: true)
        do throws(ResponseError) {
            let storedList = try service.records(owner: owner, withMetadataKey: Self.fileKey)
            let stored = Dictionary(storedList.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let paths = Array(Set(folders.flatMap { $0.notes() })).sorted()
            let names = Dictionary(paths.compactMap { p in fileName(of: p).map { (p, $0) } }, uniquingKeysWith: { a, _ in a })
            let liveFiles = Set(names.values)
            // Each stored record at its place (file and section); those whose file is gone are orphans
            // that a new entry of the same text (the file renamed meanwhile) takes back.
            var byPlace: [String: Record] = [:]
            var orphans = Orphans()
            for r in storedList {
                if let file = r.metadata[Self.fileKey]?.stringValue, liveFiles.contains(file) {
                    byPlace[Self.place(file: file, section: r.metadata["section"]?.stringValue)] = r
                } else {
                    orphans.add(id: r.id, text: r.text, revision: r.revision)
                }
            }
            var seen = Set<String>()
            let batchSize = max(1, service.settings.ingest.batchSize)
            var batch: [Planned] = []
            var batchFiles: [(path: String, planned: [Planned])] = []
            func flush() throws(ResponseError) {
                let revisions = try write(batch, waitForIndex: false, ctx)
                for (path, planned) in batchFiles {
                    table.replace(file: path, with: planned.map { p in
                        IndexedEntry(id: p.indexed.id, path: path, entry: p.indexed.entry, revision: revisions[p.indexed.id] ?? p.indexed.revision)
                    })
                }
                batch.removeAll()
                batchFiles.removeAll()
            }
            for (i, path) in paths.enumerated() {
                if token.isCancelled || closing.isCancelled { summary.cancelled = true; break }
                // A file saved meanwhile is indexed now, not after the whole folder.
                indexChangedFiles()
                guard let file = names[path] else { continue }
                guard let entries = read(path, name: file) else { summary.skipped += 1; continue }
                let planned = plan(path: path, file: file, entries: entries, existing: { byPlace[Self.place(file: file, section: $0)] },
                                   orphans: &orphans) { id in
                    // An id is taken when given in this run, or held by a record whose place is still there.
                    seen.contains(id) || stored[id].map { r in r.metadata[Self.fileKey]?.stringValue.map(liveFiles.contains) ?? false } ?? false
                }
                summary.files += 1
                summary.entries += planned.count
                for p in planned { seen.insert(p.indexed.id) }
                let writes = planned.filter { $0.write != nil }
                summary.written += writes.count
                summary.unchanged += planned.count - writes.count
                if writes.isEmpty {
                    table.replace(file: path, with: planned.map(\.indexed))
                } else {
                    batch += writes
                    batchFiles.append((path, planned))
                    if batch.count >= batchSize { try flush() }
                }
                if i % 16 == 0 { progress?.report("read \(i + 1) of \(paths.count) files", percentage: (i + 1) * 20 / max(1, paths.count)) }
            }
            try flush()
            if !summary.cancelled {
                let gone = stored.keys.filter { !seen.contains($0) }.sorted()
                try delete(gone, ctx)
                summary.deleted = gone.count
                remember(gone.compactMap { stored[$0] })
                if !waitForEmbeddings(written: summary.written, progress: progress, token: token) { summary.cancelled = true }
            }
        } catch {
            if error.code == .requestCancelled { summary.cancelled = true } else { log(.error, "kindred: indexing stopped: \(error.message)") }
        }
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        // Searchable from here; the patterns follow.
        log(.info, "kindred: indexed \(summary.description)")
        if !summary.cancelled && !closing.isCancelled {
            progress?.report("finding recurring patterns", percentage: 95)
            let refreshed = DispatchTime.now()
            if let r = refreshPatterns(token: token) {
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - refreshed.uptimeNanoseconds) / 1e9
                log(.info, "kindred: patterns refreshed: \(r["activeGroups"]?.intValue ?? 0) recurring groups hold "
                    + "\(r["recordsGrouped"]?.intValue ?? 0) entries (\(String(format: "%.1f", seconds)) s)")
            }
        }
        progress?.end("indexed \(summary.description)")
        return summary
    }

    /// Waits until no record waits for the embedder, reporting how many of `written` are embedded;
    /// gives up when nothing moved for a minute (a remote provider that keeps failing: search then
    /// says which records still wait). False when cancelled first.
    func waitForEmbeddings(written: Int, progress: WorkDoneProgress?, token: CancellationToken) -> Bool {
        var remaining = service.pendingEmbeddingCount()
        var last = (remaining, DispatchTime.now())
        while remaining > 0, !token.isCancelled, !closing.isCancelled {
            let total = max(written, remaining)
            progress?.report("embedded \(total - remaining) of \(total) entries", percentage: 20 + (total - remaining) * 75 / total)
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + 0.1)
            indexChangedFiles()
            remaining = service.pendingEmbeddingCount()
            if remaining != last.0 {
                last = (remaining, DispatchTime.now())
            } else if DispatchTime.now().uptimeNanoseconds - last.1.uptimeNanoseconds > 60_000_000_000 {
                log(.warning, "kindred: \(remaining) entries still wait for the embedder; search finds them by keyword until then")
                return true
            }
        }
        return !token.isCancelled && !closing.isCancelled
    }

    /// Re-reads files (saved, edited, created, changed, renamed or deleted outside the editor) and
    /// writes only what changed; returns once the written entries are searchable. An entry keeps its
    /// id at its place (file and section); one whose place is new takes the id of an entry of the
    /// same text that lost its place (in these files, or deleted earlier): a renamed file keeps its
    /// ids. What is left of the old entries is deleted. Paths that are no notes are left alone.
    func indexFiles(_ paths: [String]) {
        let ctx = Self.context("records/upsert", token: closing)
        var unique: [String] = []
        for p in paths where !unique.contains(p) { unique.append(p) }
        let inBatch = Set(unique)
        // Old entries, new entries, and which old ones keep their place.
        var olds: [String: [IndexedEntry]] = [:]
        var news: [String: (file: String, entries: [NoteEntry])] = [:]
        var orphans = Orphans(), orphaned: [IndexedEntry] = [], keptIDs = Set<String>()
        for path in unique {
            let old = table.entries(inFile: path)
            olds[path] = old
            var sections = Set<String?>()
            if let file = fileName(of: path), exists(path), let entries = read(path, name: file) {
                news[path] = (file, entries)
                sections = Set(entries.map(\.section))
            }
            for o in old {
                if sections.contains(o.entry.section) { keptIDs.insert(o.id) } else { orphans.add(id: o.id, text: o.entry.text, revision: o.revision); orphaned.append(o) }
            }
        }
        do throws(ResponseError) {
            var planned: [String: [Planned]] = [:]
            var assigned = Set<String>()
            for path in unique {
                guard let (file, entries) = news[path] else { continue }
                let bySection = Dictionary((olds[path] ?? []).map { ($0.entry.section ?? "", $0) }, uniquingKeysWith: { a, _ in a })
                let p = plan(path: path, file: file, entries: entries, existing: { s in bySection[s ?? ""].map { Self.record(of: $0, file: file) } },
                             orphans: &orphans) { id in
                    assigned.contains(id) || keptIDs.contains(id) || table.entry(id: id).map { !inBatch.contains($0.path) } ?? false
                }
                for e in p { assigned.insert(e.indexed.id) }
                planned[path] = p
            }
            let revisions = try write(unique.flatMap { planned[$0] ?? [] }, waitForIndex: true, ctx)
            let gone = orphaned.filter { !assigned.contains($0.id) }
            try delete(gone.map(\.id), ctx)
            for path in unique {
                table.replace(file: path, with: (planned[path] ?? []).map { p in
                    IndexedEntry(id: p.indexed.id, path: path, entry: p.indexed.entry, revision: revisions[p.indexed.id] ?? p.indexed.revision)
                })
            }
            remember(gone.map { Self.record(of: $0, file: "") })
            if !revisions.isEmpty || !gone.isEmpty { patternsChanged() }
        } catch {
            if error.code != .requestCancelled { log(.error, "kindred: \(unique.joined(separator: ", ")) not indexed: \(error.message)") }
        }
    }

    /// Keeps deleted records as orphans for the rest of the session (a file deleted, then made
    /// again with the same text, as some editors save and some tools rename).
    func remember(_ deleted: [Record]) {
        guard !deleted.isEmpty else { return }
        vanished.withLock { v in
            if v.count + deleted.count > 50_000 { v = Orphans() }
            for r in deleted { v.add(id: r.id, text: r.text, revision: r.revision + 1) }
        }
    }

    static func place(file: String, section: String?) -> String { file + "\u{0}" + (section ?? "") }

    /// Asks for one refresh of the owner's patterns after the jobs queued now (several saves in a
    /// row share one).
    func patternsChanged() {
        refreshWanted.store(true, ordering: .sequentiallyConsistent)
        enqueue { [self] in
            guard refreshWanted.exchange(false, ordering: .sequentiallyConsistent) else { return }
            refreshPatterns(token: closing)
        }
    }

    /// `patterns/refresh` for the owner; with `ctx`, its progress goes to that request's token.
    @discardableResult
    func refreshPatterns(token: CancellationToken, context: RequestContext? = nil) -> JSONValue? {
        do throws(ResponseError) {
            return try service.call("patterns/refresh", ["owner": .string(owner)], context: context ?? Self.context("patterns/refresh", token: token))
        } catch {
            if error.code != .requestCancelled { log(.warning, "kindred: patterns were not refreshed: \(error.message)") }
            return nil
        }
    }
}
