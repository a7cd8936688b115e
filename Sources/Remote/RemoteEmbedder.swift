import LinearAlgebra
import Synchronization

/// A remote embedding provider behind Kindred's embedder interface: batches of at most `batchSize`
/// texts, at most `maxConcurrent` calls in flight, bounded retries (`ProviderCall`), and answers
/// checked for count and dimension before any vector is used. Vectors come back L2-normalised.
///
/// The dimension is the configured one (`index.dimension`), or, when none is, the size of the
/// first answer (or of the vectors already stored, see `settle`); once fixed, an answer of another
/// size is refused.
public final class RemoteEmbedder: Sendable {
    public let kind: EmbeddingProviderKind
    public let endpoint: ProviderEndpoint
    public let model: String
    /// The configured dimension (0: the provider's own), sent to providers that take one (Gemini).
    public let requestedDimension: Int
    public let batchSize: Int
    private let limit: ConcurrencyLimit
    private let fixed: Mutex<Int>

    public init(kind: EmbeddingProviderKind, endpoint: ProviderEndpoint, model: String, dimension: Int, batchSize: Int, maxConcurrent: Int) {
        self.kind = kind
        self.endpoint = endpoint
        self.model = model
        self.requestedDimension = max(0, dimension)
        self.fixed = Mutex(max(0, dimension))
        self.batchSize = max(1, batchSize)
        self.limit = ConcurrencyLimit(maxConcurrent)
    }

    /// The vectors' dimension; 0 until the first answer when none was configured.
    public var dimension: Int { fixed.withLock { $0 } }

    /// Fixes the dimension to `d` unless it is fixed already; returns the dimension in force.
    @discardableResult
    public func settle(_ d: Int) -> Int {
        fixed.withLock { current in
            if current == 0, d > 0 { current = d }
            return current
        }
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
                                         body: kind.body(model: model, texts: batch, dimension: requestedDimension, inputType: inputType),
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
                // The first answer fixes an unset dimension; every later one must match it.
                let dimension = settle(v.count)
                guard v.count == dimension else {
                    let source = requestedDimension > 0 ? "index.dimension" : "fixed by the provider's first answer; index.dimension chooses another"
                    throw RemoteEmbeddingError(error: ProviderError(provider: kind.rawValue, kind: .badAnswer, status: 200, attempts: result.attempts,
                                                                    reason: "answered vectors of dimension \(v.count), the index has \(dimension) (\(source))"), usage: usage)
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
