import Foundation
import KindredCore
import JSONRPC
import Storage

extension KindredService {
    /// `index/rebuild`: drops every model vector and re-embeds all records with the current embedder,
    /// reporting `$/progress`. Cancellable: what is not re-embedded yet stays pending and is picked up
    /// by the background worker. Client vectors are kept.
    func rebuildIndex(_ params: JSONValue?, _ ctx: RequestContext) throws(ResponseError) -> JSONValue {
        _ = try Params(params)
        guard embedder != nil else { throw ResponseError.embedderUnavailable(embedderProblem ?? "no embedder") }
        let start = ContinuousClock.now
        let dropped: [Int64] = try withWriter { store in
            let rows = try store.database.query("SELECT record FROM vectors WHERE source = 'model'") { $0.int(0) }
            _ = try store.dropAllModelVectors()
            return rows
        }
        writeIndex { index in for r in dropped { index.remove(rowid: r) } }
        let total = max(1, pendingEmbeddingCount())
        ctx.progress("begin", title: "Re-embedding records", message: "0/\(total)", percentage: 0)
        var done = 0
        do {
            done = try embedPending(isCancelled: { ctx.isCancelled }) { n in
                ctx.progress("report", message: "\(n)/\(total)", percentage: n * 100 / total)
            }
        } catch {
            ctx.progress("end", message: "stopped: \(error)")
            if ctx.isCancelled { throw ResponseError.cancelled }
            throw ResponseError.embedderUnavailable(String(describing: error))
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
