import Foundation
import Testing
import LinearAlgebra
@testable import Embedding

/// Tolerances from the reference file's metadata.
private let minimumCosine: Float = 0.9999
private let maximumDimensionError: Float = 1e-4
private let batchTolerance: Float = 1e-5

@Suite("SentenceEmbedder against sentence-transformers", .serialized)
struct EmbedderTests {
    @Test func loadsModelMetadata() throws {
        let embedder = try Model.embedder()
        #expect(embedder.modelID == "all-MiniLM-L6-v2")
        #expect(embedder.dimension == 384)
        #expect(embedder.maxTokens == 256)
    }

    @Test("each embedding matches the reference", arguments: 0..<56)
    func matchesReference(index: Int) throws {
        let reference = try Reference.load()
        let sentence = try #require(reference.sentences.indices.contains(index) ? reference.sentences[index] : nil)
        let embedder = try Model.embedder()
        let vector = try #require(try embedder.embed([sentence.text]).first)
        try #require(vector.count == sentence.embedding.count)
        let cos = cosine(vector, sentence.embedding)
        let err = maxAbsDifference(vector, sentence.embedding)
        #expect(cos >= minimumCosine, "cosine \(cos) for \(sentence.text.debugDescription)")
        #expect(err <= maximumDimensionError, "max |Δ| \(err) for \(sentence.text.debugDescription)")
    }

    @Test func batchAgreesWithSingles() throws {
        let reference = try Reference.load()
        let embedder = try Model.embedder()
        let texts = reference.sentences.map(\.text)
        let batched = try embedder.embed(texts)
        try #require(batched.count == texts.count)
        for (i, text) in texts.enumerated() {
            let single = try embedder.embed([text])[0]
            let err = maxAbsDifference(batched[i], single)
            #expect(err <= batchTolerance, "batch vs single |Δ| \(err) for \(text.debugDescription)")
        }
    }

    /// With two BLAS threads the attention heads, GELU and LayerNorm run on two threads as well;
    /// the vectors must not depend on it.
    @Test func oneAndTwoThreadsAgree() throws {
        let reference = try Reference.load()
        let embedder = try Model.embedder()
        let texts = reference.sentences.map(\.text)
        let before = BLAS.threads
        defer { BLAS.setThreads(before) }
        BLAS.setThreads(2)
        let two = try embedder.embed(texts)
        BLAS.setThreads(1)
        let one = try embedder.embed(texts)
        try #require(one.count == texts.count && two.count == texts.count)
        for i in texts.indices {
            #expect(maxAbsDifference(one[i], two[i]) <= batchTolerance, "1 vs 2 threads for \(texts[i].debugDescription)")
        }
    }

    /// BLAS threads are set once at start: a forward pass over a long batch (BLAS for the dense
    /// layers, the embedder's own workers for attention) leaves the count as it found it, also above
    /// the embedder's own limit of eight workers.
    @Test func forwardPassLeavesTheBLASThreadCountAlone() throws {
        let reference = try Reference.load()
        let embedder = try Model.embedder()
        let texts = reference.sentences.map(\.text)
        let before = BLAS.threads
        defer { BLAS.setThreads(before) }
        BLAS.setThreads(1)
        let one = try embedder.embed(texts)
        BLAS.setThreads(10)
        try #require(BLAS.threads == 10)
        let many = try embedder.embed(texts)
        #expect(BLAS.threads == 10)
        _ = try embedder.embed(["a short query"])
        #expect(BLAS.threads == 10)
        for i in texts.indices {
            #expect(maxAbsDifference(one[i], many[i]) <= batchTolerance, "1 vs 10 threads for \(texts[i].debugDescription)")
        }
    }

    @Test func emptyStringGivesUnitVector() throws {
        let vector = try Model.embedder().embed([""])[0]
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        #expect(vector.count == 384)
        #expect(abs(norm - 1) < 1e-5)
        #expect(vector.allSatisfy { $0.isFinite })
    }

    @Test func emptyBatchGivesNothing() throws {
        #expect(try Model.embedder().embed([]).isEmpty)
    }

    @Test func cancellationThrows() throws {
        let embedder = try Model.embedder()
        #expect(throws: CancellationError.self) {
            _ = try embedder.embed(["A man is eating food."], isCancelled: { true })
        }
        var calls = 0
        #expect(throws: CancellationError.self) {
            _ = try embedder.embed(["A man is eating food."], isCancelled: { calls += 1; return calls > 3 })
        }
    }
}

@Suite("Large batches")
struct LargeBatchTests {
    /// A batch larger than one forward pass is split into chunks without changing the results.
    @Test func chunkedBatchMatchesUnchunked() throws {
        let reference = try Reference.load()
        let embedder = try Model.embedder()
        let texts = reference.sentences.map(\.text)
        let whole = try embedder.embed(texts)
        let chunked = try embedder.embed(texts, tokensPerPass: 40, isCancelled: { false })
        try #require(chunked.count == whole.count)
        for i in texts.indices {
            #expect(maxAbsDifference(chunked[i], whole[i]) <= 1e-5)
            #expect(maxAbsDifference(chunked[i], reference.sentences[i].embedding) <= 1e-4)
        }
    }
}

@Suite("Sharing one embedder")
struct ConcurrencyTests {
    /// `SentenceEmbedder` is immutable after init and allocates per call, so concurrent callers
    /// get the same vectors as sequential ones.
    @Test func concurrentCallsAgreeWithSequential() async throws {
        let reference = try Reference.load()
        let embedder = try Model.embedder()
        let texts = Array(reference.sentences.prefix(16).map(\.text))
        let sequential = try texts.map { try embedder.embed([$0])[0] }
        let concurrent = try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            for (i, text) in texts.enumerated() {
                group.addTask { (i, try embedder.embed([text])[0]) }
            }
            var out = [[Float]](repeating: [], count: texts.count)
            for try await (i, v) in group { out[i] = v }
            return out
        }
        for i in texts.indices {
            #expect(maxAbsDifference(concurrent[i], sequential[i]) <= 1e-5)
        }
    }
}

@Suite("Shared short-input products")
struct ShortInputThreadTests {
    /// A query-sized input embedded with its dense products shared by two threads gives the same
    /// bits as on one thread, and still matches the reference.
    @Test func twoThreadsGiveTheSameVectors() throws {
        let reference = try Reference.load()
        let one = try Model.embedder()
        let two = try SentenceEmbedder(modelDirectory: Model.directory, shortInputThreads: 2)
        let short = reference.sentences.filter { $0.num_tokens < 64 }
        try #require(short.count >= 10)
        for sentence in short {
            let a = try one.embed([sentence.text])[0], b = try two.embed([sentence.text])[0]
            #expect(a == b, "1 vs 2 threads for \(sentence.text.debugDescription)")
            #expect(maxAbsDifference(b, sentence.embedding) <= maximumDimensionError)
        }
    }
}
