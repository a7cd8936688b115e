public import KindredCore
public import Remote

/// Anything that turns texts into unit vectors (the in-process model, a remote provider, a test double).
public protocol TextEmbedder: Sendable {
    var modelID: String { get }
    /// The vectors' dimension; 0 while a remote provider's is not known yet (see `adoptDimension`).
    var dimension: Int { get }
    /// How search texts and stored texts are handed to the model (prefixes, input types).
    var forms: EmbeddingForms { get }
    /// The remote provider's name (`openai`, `ollama`, `gemini`); nil for an in-process embedder.
    var remoteProvider: String? { get }
    /// Embeds `texts` exactly as given.
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]]
    /// Embeds `texts` as `role`: the role's prefix prepended, its input type sent (see `forms`).
    func embed(_ texts: [String], as role: EmbeddingRole, isCancelled: () -> Bool) throws -> [[Float]]
    /// `embed(_:as:)`, also saying what a remote provider was asked (nil for an in-process
    /// embedder); `onRetry` hears each retry. A remote failure throws `RemoteEmbeddingError`.
    func embedMetered(_ texts: [String], as role: EmbeddingRole, isCancelled: () -> Bool,
                      onRetry: (String) -> Void) throws -> (vectors: [[Float]], usage: RemoteUsage?)
    /// Takes `d` as the dimension when it is not known yet (from the vectors already stored).
    func adoptDimension(_ d: Int)
    /// The arithmetic, when it makes other vectors than the model's float32 ones (`int8`); part of the index version.
    var precision: String { get }
    /// The local model's arithmetic (`float32`, `int8`) and why it is the one in use; nil for others.
    var precisionInUse: (name: String, reason: String)? { get }
    /// This embedder for a database that holds `count(version)` vectors of each index version: the
    /// local model with `embedder.precision` auto takes the precision the database was written with.
    func keepingStoredPrecision(count: (IndexVersion) throws -> Int) throws -> any TextEmbedder
}

extension TextEmbedder {
    public var forms: EmbeddingForms { .plain }
    public var remoteProvider: String? { nil }
    public var precision: String { "" }
    public var precisionInUse: (name: String, reason: String)? { nil }
    public func keepingStoredPrecision(count: (IndexVersion) throws -> Int) throws -> any TextEmbedder { self }
    public func adoptDimension(_ d: Int) {}
    public func embed(_ texts: [String], as role: EmbeddingRole, isCancelled: () -> Bool) throws -> [[Float]] {
        try embed(forms.prepare(texts, as: role), isCancelled: isCancelled)
    }
    public func embedMetered(_ texts: [String], as role: EmbeddingRole, isCancelled: () -> Bool,
                             onRetry: (String) -> Void) throws -> (vectors: [[Float]], usage: RemoteUsage?) {
        (try embed(texts, as: role, isCancelled: isCancelled), nil)
    }

    /// The index version of the vectors this embedder makes of documents.
    public var indexVersion: IndexVersion { IndexVersion(model: modelID, dimension: dimension, forms: forms, precision: precision) }
}

/// A remote provider as Kindred's embedder.
struct RemoteTextEmbedder: TextEmbedder {
    let remote: RemoteEmbedder
    let forms: EmbeddingForms
    var modelID: String { remote.model }
    var dimension: Int { remote.dimension }
    var remoteProvider: String? { remote.kind.rawValue }
    func adoptDimension(_ d: Int) { remote.settle(d) }

    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        try remote.embed(texts, isCancelled: isCancelled).vectors
    }

    func embed(_ texts: [String], as role: EmbeddingRole, isCancelled: () -> Bool) throws -> [[Float]] {
        try remote.embed(forms.prepare(texts, as: role), inputType: forms.inputType(role), isCancelled: isCancelled).vectors
    }

    func embedMetered(_ texts: [String], as role: EmbeddingRole, isCancelled: () -> Bool,
                      onRetry: (String) -> Void) throws -> (vectors: [[Float]], usage: RemoteUsage?) {
        let (vectors, usage) = try remote.embed(forms.prepare(texts, as: role), inputType: forms.inputType(role),
                                                isCancelled: isCancelled, onRetry: onRetry)
        return (vectors, usage)
    }
}
