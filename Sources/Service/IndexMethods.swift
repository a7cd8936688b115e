import Foundation
import KindredCore
import JSONRPC
import Storage

extension KindredService {
    /// `index/rebuild`: re-embeds every record with the current embedder, replacing vectors in place
    /// (search keeps its entries meanwhile), reporting `$/progress`. Cancellable: records not reached
    /// keep their previous vectors. Client vectors are kept.
    func rebuildIndex(_ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        guard embedder != nil else { throw ResponseError.embedderUnavailable(embedderProblem ?? "no embedder") }
        let start = ContinuousClock.now
        let version = indexVersion
        let candidates = try withReader { try $0.reembedCount(indexVersion: version) }
        let total = max(1, candidates)
        ctx.progress("begin", title: "Re-embedding records", message: "0/\(total)", percentage: 0)
        var done = 0
        do {
            done = try embedRecords(everything: true, isCancelled: { ctx.isCancelled }) { n in
                ctx.progress("report", message: "\(n)/\(total)", percentage: n * 100 / total)
            }
        } catch {
            ctx.progress("end", message: "stopped: \(error)")
            if ctx.isCancelled { throw ResponseError.cancelled }
            throw ResponseError.embedderFailed(error)
        }
        ctx.progress("end", message: "\(done) records re-embedded")
        if ctx.isCancelled {
            embeddingWorkDidArrive()
            throw ResponseError.cancelled
        }
        let elapsed = ContinuousClock.now - start
        return [
            "reembedded": .from(done), "pending": .from(pendingEmbeddingCount()),
            "indexVersion": .string(indexVersion.description),
            "durationMs": .from(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)),
        ]
    }
}
