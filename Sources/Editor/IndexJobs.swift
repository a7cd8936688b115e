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
            let stored = Dictionary(try service.records(owner: owner, withMetadataKey: Self.fileKey).map { ($0.id, $0) },
                                    uniquingKeysWith: { a, _ in a })
            var seen = Set<String>()
            let paths = Array(Set(folders.flatMap { $0.notes() })).sorted()
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
                guard let file = fileName(of: path) else { continue }
                guard let entries = read(path, name: file) else { summary.skipped += 1; continue }
                let planned = plan(path: path, file: file, entries: entries) { stored[$0] }
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

    /// Re-reads one file (saved, created, changed or deleted outside the editor) and writes only what
    /// changed; answers once the written entries are searchable. A path that is no note of the
    /// folders is left alone.
    func indexFile(_ path: String) {
        guard let file = fileName(of: path) else { return }
        let ctx = Self.context("records/upsert", token: closing)
        let old = table.entries(inFile: path)
        let oldByID = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        do throws(ResponseError) {
            var planned: [Planned] = []
            if FileManager.default.fileExists(atPath: path), let entries = read(path, name: file) {
                planned = plan(path: path, file: file, entries: entries) { id in
                    oldByID[id].map { o in
                        Record(id: id, revision: o.revision, text: o.entry.text, kind: Self.kind, date: o.entry.date,
                               metadata: Self.metadata(file: file, o.entry))
                    }
                }
            }
            let revisions = try write(planned, waitForIndex: true, ctx)
            let kept = Set(planned.map(\.indexed.id))
            let gone = old.map(\.id).filter { !kept.contains($0) }
            try delete(gone, ctx)
            table.replace(file: path, with: planned.map { p in
                IndexedEntry(id: p.indexed.id, path: path, entry: p.indexed.entry, revision: revisions[p.indexed.id] ?? p.indexed.revision)
            })
            if !revisions.isEmpty || !gone.isEmpty { patternsChanged() }
        } catch {
            if error.code != .requestCancelled { log(.error, "kindred: \(file) was not indexed: \(error.message)") }
        }
    }

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
