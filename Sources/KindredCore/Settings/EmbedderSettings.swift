/// `embedder.*`: which model makes the vectors, and how a remote provider is called.
public struct EmbedderSettings: Sendable, Equatable {
    /// local, none, openai, ollama or gemini.
    public var provider: String
    public var model: String
    public var preset: String
    public var queryPrefix: String
    public var documentPrefix: String
    public var queryInputType: String
    public var documentInputType: String
    public var url: String
    public var apiKey: String
    /// Seconds.
    public var connectTimeout: Double
    /// Seconds, for one HTTP exchange.
    public var timeout: Double
    public var maxRetries: Int
    /// Seconds.
    public var retryBase: Double
    /// Seconds.
    public var retryMax: Double
    /// Seconds.
    public var retryLater: Double
    public var maxConcurrent: Int
    public var modelDirectory: String
    public var batchSize: Int
    public var queryThreads: Int

    public init(_ c: Config) {
        provider = c.string("embedder.provider")
        model = c.string("embedder.model")
        preset = c.string("embedder.preset")
        queryPrefix = c.string("embedder.queryPrefix")
        documentPrefix = c.string("embedder.documentPrefix")
        queryInputType = c.string("embedder.queryInputType")
        documentInputType = c.string("embedder.documentInputType")
        url = c.string("embedder.url")
        apiKey = c.string("embedder.apiKey")
        connectTimeout = Double(c.int("embedder.connectTimeoutMs")) / 1000
        timeout = Double(c.int("embedder.timeoutMs")) / 1000
        maxRetries = c.int("embedder.maxRetries")
        retryBase = Double(c.int("embedder.retryBaseMs")) / 1000
        retryMax = Double(c.int("embedder.retryMaxMs")) / 1000
        retryLater = Double(c.int("embedder.retryLaterMs")) / 1000
        maxConcurrent = c.int("embedder.maxConcurrent")
        modelDirectory = c.string("embedder.modelDirectory")
        batchSize = c.int("embedder.batchSize")
        queryThreads = c.int("embedder.queryThreads")
    }
}
