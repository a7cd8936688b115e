import Foundation
import KindredCore
import JSONRPC
import Storage
import KindredProtocol

extension KindredService {
    /// `index/rebuild`: brings every record to the current index version, batch by batch, with
    /// `$/progress`. New vectors are staged beside the ones that serve today and put in the search
    /// index as they come; once every record has one they are moved in together and the vectors of
    /// other versions are deleted (then the file is vacuumed). Cancelled, failed or interrupted by a
    /// crash, it keeps what it staged, and the next `index/rebuild` resumes from there.
    ///
    /// The local model re-embeds every record whose vector is not the client's own; a remote
    /// provider only records without a vector of the current version (each call is paid for).
    func rebuildIndex(_ ctx: RequestContext) throws(ResponseError) -> IndexRebuild.Result {
        guard let embedder else { throw ResponseError.embedderUnavailable(embedderProblem ?? "no embedder") }
        let start = ContinuousClock.now
        let version = indexVersion
        let everything = embedder.remoteProvider == nil
        let batch = max(1, settings.embedder.batchSize)
        let resumed = try withReader { try $0.stagedCount(indexVersion: version) }
        let remaining = try withReader { try $0.rebuildRemaining(indexVersion: version, everything: everything) }
        let total = max(1, resumed + remaining)
        ctx.progress("begin", title: "Re-embedding records", message: "\(resumed)/\(total)", percentage: resumed * 100 / total)
        var done = 0
        var after: Int64 = 0
        do {
            while true {
                try ctx.checkCancelled()
                let current = indexVersion
                let fetched = try withWriter { try $0.rebuildCandidates(indexVersion: current, everything: everything, limit: batch, after: after) }
                guard let last = fetched.last else { break }
                after = last.rowid
                let (work, vectors) = try embedWork(fetched, skipLimited: false, isCancelled: { ctx.isCancelled }, log: { ctx.log(.warning, $0) })
                let items = zip(work, vectors).map { (rowid: $0.rowid, revision: $0.revision, vector: $1) }
                // Staged vectors serve search at once (lock order: writer, then index).
                try withWriter { store in
                    // Read again: the first answer of a remote provider may have fixed the dimension.
                    let staged = Set(try store.stageVectors(items, indexVersion: indexVersion))
                    let searchable = try store.searchableOwners(rowids: Array(staged))
                    writeIndex { index in
                        for item in items { if let owner = searchable[item.rowid] { index.put(owner: owner, rowid: item.rowid, vector: item.vector) } }
                    }
                }
                done += items.count
                ctx.progress("report", message: "\(resumed + done)/\(total)", percentage: (resumed + done) * 100 / total)
            }
        } catch {
            let staged = (try? withReader { [indexVersion] in try $0.stagedCount(indexVersion: indexVersion) }) ?? resumed + done
            ctx.progress("end", message: "stopped with \(staged) of \(total) re-embedded; index/rebuild resumes from there")
            if ctx.isCancelled { throw ResponseError.cancelled }
            switch error {
            case let e as ResponseError: throw e
            case let e as DailyLimitReached: throw e.responseError
            default: throw ResponseError.embedderFailed(error)
            }
        }
        let settled = indexVersion
        let swap = try withWriter { try $0.completeRebuild(indexVersion: settled) }
        previous?.retire()
        let reclaimed = (try? withWriter { try $0.reclaimSpace() }) != nil
        ctx.progress("end", message: "\(resumed + done) records re-embedded; \(swap.deleted) vectors of other versions deleted")
        if everything { embeddingWorkDidArrive() }
        let elapsed = ContinuousClock.now - start
        return IndexRebuild.Result(
            reembedded: done, resumed: resumed, moved: swap.moved, deletedOtherVersions: swap.deleted,
            spaceReclaimed: reclaimed, pending: pendingEmbeddingCount(),
            indexVersion: indexVersion.description,
            durationMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }
}
