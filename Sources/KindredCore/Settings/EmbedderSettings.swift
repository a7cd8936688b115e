/// `embedder.*`: which model makes the vectors, and how a remote provider is called.
public struct EmbedderSettings: Sendable, Equatable, Decodable {
    /// local, none, openai, ollama or gemini.
    public var provider: String
    public var model: String
    public var preset: String
    /// The languages the model serves: auto, all, or ISO 639-1 codes separated by commas (checked at start).
    public var languages: String
    public var queryPrefix: String
    public var documentPrefix: String
    public var queryInputType: String
    public var documentInputType: String
    public var url: String
    public var apiKey: String
    public var connectTimeoutMs: Int
    public var timeoutMs: Int
    public var maxRetries: Int
    public var retryBaseMs: Int
    public var retryMaxMs: Int
    public var retryLaterMs: Int
    public var maxConcurrent: Int
    public var modelDirectory: String
    public var batchSize: Int
    public var queryThreads: Int
    /// The local model's arithmetic: float32 or int8 (checked where the model loads).
    public var precision: String
}

extension EmbedderSettings {
    /// The waits above, in seconds.
    public var connectTimeout: Double { Double(connectTimeoutMs) / 1000 }
    public var timeout: Double { Double(timeoutMs) / 1000 }
    public var retryBase: Double { Double(retryBaseMs) / 1000 }
    public var retryMax: Double { Double(retryMaxMs) / 1000 }
    public var retryLater: Double { Double(retryLaterMs) / 1000 }
}
