import Embedding
import Foundation
import LinearAlgebra

/// Throughput measurement behind `kindred-bench embedder`: embeds every non-empty line of a text file
/// in batches and reports the wall time of the embedding calls (model loading excluded) and the
/// processor time every thread of the process spent meanwhile (time spent busy-waiting counts).
/// `threads` is both the BLAS thread count and the threads sharing a short input's products.
enum EmbedBenchmark {
    static func run(
        modelDirectory: String, textsFile: String, batch: Int, threads: Int, precision: Precision = .float32
    ) throws -> (sentences: Int, seconds: Double, processorSeconds: Double) {
        let content: String
        do {
            content = try String(contentsOfFile: textsFile, encoding: .utf8)
        } catch {
            throw ModelLoadError(file: textsFile, reason: "cannot read texts: \(error.localizedDescription)")
        }
        let texts = content.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        BLAS.setThreads(threads)
        let embedder = try SentenceEmbedder(modelDirectory: modelDirectory, shortInputThreads: threads, precision: precision)
        let size = max(1, batch)
        // One warm-up batch so page faults on the mapped weights are not timed.
        _ = try embedder.embed(Array(texts.prefix(size)))
        let clock = ContinuousClock()
        let processorStart = ProcessorTime.seconds()
        let start = clock.now
        var done = 0
        while done < texts.count {
            let end = min(done + size, texts.count)
            _ = try embedder.embed(Array(texts[done..<end]))
            done = end
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return (texts.count, seconds, ProcessorTime.seconds() - processorStart)
    }
}
