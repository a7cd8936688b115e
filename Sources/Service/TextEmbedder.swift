public import Remote

/// Anything that turns texts into unit vectors (the in-process model, a remote provider, a test double).
public protocol TextEmbedder: Sendable {
    var modelID: String { get }
    var dimension: Int { get }
    /// The remote provider's name (`openai`, `ollama`, `gemini`); nil for an in-process embedder.
    var remoteProvider: String? { get }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]]
    /// `embed`, also saying what a remote provider was asked (nil for an in-process embedder);
    /// `onRetry` hears each retry. A remote failure throws `RemoteEmbeddingError`.
    func embedMetered(_ texts: [String], isCancelled: () -> Bool, onRetry: (String) -> Void) throws -> (vectors: [[Float]], usage: RemoteUsage?)
}

extension TextEmbedder {
    public var remoteProvider: String? { nil }
    public func embedMetered(_ texts: [String], isCancelled: () -> Bool, onRetry: (String) -> Void) throws -> (vectors: [[Float]], usage: RemoteUsage?) {
        (try embed(texts, isCancelled: isCancelled), nil)
    }
}

/// A remote provider as Kindred's embedder.
struct RemoteTextEmbedder: TextEmbedder {
    let remote: RemoteEmbedder
    var modelID: String { remote.model }
    var dimension: Int { remote.dimension }
    var remoteProvider: String? { remote.kind.rawValue }

    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        try remote.embed(texts, isCancelled: isCancelled).vectors
    }

    func embedMetered(_ texts: [String], isCancelled: () -> Bool, onRetry: (String) -> Void) throws -> (vectors: [[Float]], usage: RemoteUsage?) {
        let (vectors, usage) = try remote.embed(texts, isCancelled: isCancelled, onRetry: onRetry)
        return (vectors, usage)
    }
}
