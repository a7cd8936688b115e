import Foundation
import LinearAlgebra
import Testing
@testable import Embedding

/// The int8 forward pass against the float32 one on the parity sentences.
@Suite("int8 forward pass", .serialized)
struct Int8EmbedderTests {
    /// The floor every int8 vector keeps to its float32 vector (bench/embedder reports min and mean).
    static let minimumCosine: Float = 0.998

    static let shared: Result<SentenceEmbedder, any Error> = Result {
        _ = try Model.embedder()
        return try SentenceEmbedder(modelDirectory: Model.directory, precision: .int8)
    }

    @Test func cosineToFloat32AboveTheFloor() throws {
        let reference = try Reference.load()
        let int8 = try Self.shared.get(), float = try Model.embedder()
        #expect(int8.precision == .int8 && float.precision == .float32)
        let texts = reference.sentences.map(\.text)
        let a = try int8.embed(texts), b = try float.embed(texts)
        try #require(a.count == texts.count && b.count == texts.count)
        var lowest: Float = 1
        for i in texts.indices {
            let c = cosine(a[i], b[i])
            lowest = min(lowest, c)
            #expect(c >= Self.minimumCosine, "cosine \(c) for \(texts[i].debugDescription)")
            #expect(cosine(a[i], reference.sentences[i].embedding) >= Self.minimumCosine)
        }
        // The int8 path is really taken: its vectors are close to, not equal to, the float32 ones.
        #expect(lowest < 0.99999)
    }

    /// Rows cut over two threads (long inputs) or channels shared by two threads (short inputs) give
    /// the same bits as one thread.
    @Test func threadsDoNotChangeTheVectors() throws {
        let reference = try Reference.load()
        let int8 = try Self.shared.get()
        let shared = try SentenceEmbedder(modelDirectory: Model.directory, shortInputThreads: 2, precision: .int8)
        let texts = reference.sentences.map(\.text)
        let before = BLAS.threads
        defer { BLAS.setThreads(before) }
        BLAS.setThreads(1)
        let one = try int8.embed(texts)
        BLAS.setThreads(2)
        let two = try int8.embed(texts)
        #expect(one == two)
        for sentence in reference.sentences where sentence.num_tokens < 64 {
            #expect(try shared.embed([sentence.text]) == int8.embed([sentence.text]), "\(sentence.text.debugDescription)")
        }
    }
}
