public import KindredCore
import LinearAlgebra

/// Chooses and loads the embedder named by the configuration.
public enum EmbedderSetup {
    /// Sets BLAS threads: `blas.threads`, or one per core when 0.
    public static func configureThreads(_ config: Config) {
        let n = config.int("blas.threads")
        if n > 0 { BLAS.setThreads(n) }
    }

    /// The embedder, or nil with the reason it is unavailable.
    public static func make(_ config: Config) -> ((any TextEmbedder)?, String?) {
        switch config.string("embedder.provider") {
        case "none":
            return (nil, "embedder.provider is none")
        default:
            return (nil, "the local model is not available in this build")
        }
    }
}
