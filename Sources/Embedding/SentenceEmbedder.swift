import Foundation

/// A sentence-transformers BERT model loaded from a folder: all-MiniLM-L6-v2 (WordPiece,
/// `vocab.txt`) or multilingual-e5-small (XLM-R's SentencePiece unigram, `tokenizer.json`); the
/// encoder forward pass on the CPU, mean pooling and L2 normalisation.
///
/// Immutable after `init`; `embed` allocates its own buffers, so one instance can serve concurrent
/// callers. BLAS threading is process-wide and left to the caller (`BLAS.setThreads`, once at start):
/// the forward pass never changes it.
public final class SentenceEmbedder: @unchecked Sendable {
    /// Model name: the folder's last path component.
    public let modelID: String
    /// Length of every embedding.
    public let dimension: Int
    /// Tokens per input including `[CLS]` and `[SEP]`; longer inputs are truncated.
    public let maxTokens: Int
    public let tokenizer: any SentenceTokenizer
    /// Arithmetic of the dense layers.
    public let precision: Precision

    private let encoder: BertEncoder
    private let pooling: BertEncoder.Pooling

    /// Loads `config.json`, `vocab.txt` (else `tokenizer.json`), `model.safetensors` (memory-mapped), and if present
    /// `sentence_bert_config.json` and `1_Pooling/config.json`. Every tensor's shape is checked
    /// against `config.json`; errors name the file and tensor. `shortInputThreads` threads share the
    /// dense products of an input of under 64 tokens (a search query); embeddings are the same for
    /// any value.
    ///
    /// `precision` chooses the arithmetic of the dense layers (see `Precision`); int8 weights are
    /// quantised here, once.
    public init(modelDirectory: String, shortInputThreads: Int = 1, precision: Precision = .float32) throws {
        let dir = modelDirectory.hasSuffix("/") && modelDirectory.count > 1
            ? String(modelDirectory.dropLast()) : modelDirectory
        let config = try BertConfig(file: dir + "/config.json")
        let st = try SentenceTransformerConfig(directory: dir)
        let vocabFile = dir + "/vocab.txt"
        let tokenizerFile = FileManager.default.fileExists(atPath: vocabFile) ? vocabFile : dir + "/tokenizer.json"
        tokenizer = tokenizerFile == vocabFile ? try WordPieceTokenizer(vocabFile: vocabFile) : try UnigramTokenizer(file: tokenizerFile)
        guard tokenizer.vocabularySize <= config.vocabSize else {
            throw ModelLoadError(
                file: tokenizerFile,
                reason: "\(tokenizer.vocabularySize) pieces but config vocab_size is \(config.vocabSize)")
        }
        let file = try SafeTensors(path: dir + "/model.safetensors")
        encoder = BertEncoder(weights: try BertWeights(file: file, config: config), shortInputThreads: max(1, shortInputThreads),
                              precision: precision)
        self.precision = precision
        pooling = st.pooling == .cls ? .cls : .mean
        modelID = URL(fileURLWithPath: dir).standardizedFileURL.lastPathComponent
        dimension = config.hiddenSize
        maxTokens = min(st.maxSeqLength, config.maxPositionEmbeddings)
    }

    /// Embeds `texts`, returning one L2-normalised vector of `dimension` floats per text, in order.
    /// The tokens of the whole batch are packed into one matrix for the dense layers; attention runs
    /// per text. `isCancelled` is polled between layers; when it returns true this throws
    /// `CancellationError`.
    public func embed(_ texts: [String], isCancelled: () -> Bool = { false }) throws -> [[Float]] {
        try embed(texts, tokensPerPass: Self.tokensPerPass, isCancelled: isCancelled)
    }

    func embed(_ texts: [String], tokensPerPass: Int, isCancelled: () -> Bool) throws -> [[Float]] {
        if texts.isEmpty { return [] }
        let ids = texts.map { tokenizer.encode($0, maxTokens: maxTokens) }
        // Bound the working set: run the packed forward pass on chunks of at most
        // `tokensPerPass` tokens (one text is never split).
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        var start = 0
        while start < ids.count {
            var end = start, tokens = 0
            while end < ids.count, end == start || tokens + ids[end].count <= tokensPerPass {
                tokens += ids[end].count
                end += 1
            }
            if isCancelled() { throw CancellationError() }
            vectors += try encoder.embed(Array(ids[start..<end]), pooling: pooling, isCancelled: isCancelled)
            start = end
        }
        return vectors
    }

    /// Most tokens packed into one forward pass; larger inputs are processed in chunks. For
    /// all-MiniLM-L6-v2 the pass buffers take 6·384 + 1 536 = 3 840 floats per token, so 4 096 tokens
    /// need 63 MB — and M = 4 096 rows already keeps the GEMMs at full speed.
    static let tokensPerPass = 4_096

    /// Tokens `text` would have including `[CLS]` and `[SEP]`, before truncation to `maxTokens`
    /// (so a result above `maxTokens` means the text is truncated).
    public func tokenCount(_ text: String) -> Int {
        tokenizer.pieceCount(text) + 2
    }
}
