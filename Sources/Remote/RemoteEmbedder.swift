import LinearAlgebra

/// A remote embedding provider behind Kindred's embedder interface: batches of at most `batchSize`
/// texts, at most `maxConcurrent` calls in flight, bounded retries (`ProviderCall`), and answers
/// checked for count and dimension before any vector is used. Vectors come back L2-normalised.
public final class RemoteEmbedder: Sendable {
    public let kind: EmbeddingProviderKind
    public let endpoint: ProviderEndpoint
    public let model: String
    public let dimension: Int
    public let batchSize: Int
    private let limit: ConcurrencyLimit

    public init(kind: EmbeddingProviderKind, endpoint: ProviderEndpoint, model: String, dimension: Int, batchSize: Int, maxConcurrent: Int) {
        self.kind = kind
        self.endpoint = endpoint
        self.model = model
        self.dimension = dimension
        self.batchSize = max(1, batchSize)
        self.limit = ConcurrencyLimit(maxConcurrent)
    }

    /// Embeds `texts` in order, telling the provider `inputType` when given. Nothing partial is
    /// returned: any failed batch fails the whole call (its usage so far is in the error's `usage`).
    public func embed(_ texts: [String], inputType: String? = nil, isCancelled: () -> Bool,
                      onRetry: (String) -> Void = { _ in }) throws(RemoteEmbeddingError) -> (vectors: [[Float]], usage: RemoteUsage) {
        var usage = RemoteUsage(provider: kind.rawValue)
        var out: [[Float]] = []
        out.reserveCapacity(texts.count)
        var start = 0
        while start < texts.count {
            let batch = Array(texts[start..<min(texts.count, start + batchSize)])
            start += batch.count
            usage.calls += 1
            usage.inputCharacters += batch.reduce(0) { $0 + $1.unicodeScalars.count }
            let result: (value: EmbeddingProviderKind.Answer, attempts: Int)?
            do {
                result = try limit.run(isCancelled: isCancelled) { () throws(ProviderError) in
                    try ProviderCall.run(endpoint, path: kind.path(model: model), headers: kind.headers(key: endpoint.apiKey),
                                         body: kind.body(model: model, texts: batch, dimension: dimension, inputType: inputType),
                                         isCancelled: isCancelled, onRetry: onRetry) { bytes throws(AnswerError) in try kind.parse(bytes) }
                }
            } catch {
                usage.attempts += error.attempts
                throw RemoteEmbeddingError(error: error, usage: usage)
            }
            guard let result else {
                throw RemoteEmbeddingError(error: ProviderError(provider: kind.rawValue, kind: .cancelled, attempts: 0, reason: "cancelled"), usage: usage)
            }
            usage.attempts += result.attempts
            if let t = result.value.tokens { usage.tokens = (usage.tokens ?? 0) + t }
            let vectors = result.value.vectors
            guard vectors.count == batch.count else {
                throw RemoteEmbeddingError(error: ProviderError(provider: kind.rawValue, kind: .badAnswer, status: 200, attempts: result.attempts,
                                                                reason: "answered \(vectors.count) vectors for \(batch.count) texts"), usage: usage)
            }
            for v in vectors {
                guard v.count == dimension else {
                    throw RemoteEmbeddingError(error: ProviderError(provider: kind.rawValue, kind: .badAnswer, status: 200, attempts: result.attempts,
                                                                    reason: "answered vectors of dimension \(v.count), the index has \(dimension) (index.dimension)"), usage: usage)
                }
                let n = Vectors.norm(v)
                guard n > 0, n.isFinite else {
                    throw RemoteEmbeddingError(error: ProviderError(provider: kind.rawValue, kind: .badAnswer, status: 200, attempts: result.attempts,
                                                                    reason: "answered a zero vector"), usage: usage)
                }
                out.append(v.map { $0 / n })
            }
        }
        return (out, usage)
    }
}

/// A failed embedding call and what it had used by then.
public struct RemoteEmbeddingError: Error, Sendable, CustomStringConvertible {
    public let error: ProviderError
    public let usage: RemoteUsage
    public var description: String { error.description }
}
