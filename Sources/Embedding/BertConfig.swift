import Foundation

/// The fields of a HuggingFace BERT `config.json` that the forward pass depends on.
struct BertConfig: Sendable, Equatable {
    var hiddenSize: Int
    var numHiddenLayers: Int
    var numAttentionHeads: Int
    var intermediateSize: Int
    var vocabSize: Int
    var maxPositionEmbeddings: Int
    var typeVocabSize: Int
    var layerNormEps: Float

    var headSize: Int { hiddenSize / numAttentionHeads }

    private struct Raw: Decodable {
        var hidden_size: Int
        var num_hidden_layers: Int
        var num_attention_heads: Int
        var intermediate_size: Int
        var vocab_size: Int
        var max_position_embeddings: Int
        var type_vocab_size: Int?
        var layer_norm_eps: Double?
        var hidden_act: String?
        var position_embedding_type: String?
        var model_type: String?
    }

    init(hiddenSize: Int, numHiddenLayers: Int, numAttentionHeads: Int, intermediateSize: Int,
         vocabSize: Int, maxPositionEmbeddings: Int, typeVocabSize: Int, layerNormEps: Float) {
        self.hiddenSize = hiddenSize
        self.numHiddenLayers = numHiddenLayers
        self.numAttentionHeads = numAttentionHeads
        self.intermediateSize = intermediateSize
        self.vocabSize = vocabSize
        self.maxPositionEmbeddings = maxPositionEmbeddings
        self.typeVocabSize = typeVocabSize
        self.layerNormEps = layerNormEps
    }

    /// Reads and checks `config.json`; only absolute-position BERT with exact GELU is supported.
    init(file: String) throws {
        func fail(_ reason: String) -> ModelLoadError { ModelLoadError(file: file, reason: reason) }
        let raw: Raw
        do {
            raw = try JSONDecoder().decode(Raw.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        } catch {
            throw fail("cannot read BERT config: \(error)")
        }
        if let type = raw.model_type, type != "bert" { throw fail("model_type \(type) is not supported (bert only)") }
        if let act = raw.hidden_act, act != "gelu" { throw fail("hidden_act \(act) is not supported (gelu only)") }
        if let pos = raw.position_embedding_type, pos != "absolute" {
            throw fail("position_embedding_type \(pos) is not supported (absolute only)")
        }
        self.init(
            hiddenSize: raw.hidden_size, numHiddenLayers: raw.num_hidden_layers,
            numAttentionHeads: raw.num_attention_heads, intermediateSize: raw.intermediate_size,
            vocabSize: raw.vocab_size, maxPositionEmbeddings: raw.max_position_embeddings,
            typeVocabSize: raw.type_vocab_size ?? 2, layerNormEps: Float(raw.layer_norm_eps ?? 1e-12))
        let sizes = [hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, vocabSize,
                     maxPositionEmbeddings, typeVocabSize]
        guard sizes.allSatisfy({ $0 > 0 && $0 <= 1 << 20 }) else { throw fail("sizes must be positive") }
        guard hiddenSize % numAttentionHeads == 0 else {
            throw fail("hidden_size \(hiddenSize) is not a multiple of num_attention_heads \(numAttentionHeads)")
        }
    }
}

/// `sentence_bert_config.json` and `1_Pooling/config.json`, both optional.
struct SentenceTransformerConfig: Sendable, Equatable {
    enum Pooling: Sendable, Equatable { case mean, cls }

    var maxSeqLength = 256
    var pooling = Pooling.mean

    init() {}

    init(directory: String) throws {
        let fm = FileManager.default
        let sbert = directory + "/sentence_bert_config.json"
        if fm.fileExists(atPath: sbert) {
            struct Raw: Decodable { var max_seq_length: Int? }
            do {
                let raw = try JSONDecoder().decode(Raw.self, from: Data(contentsOf: URL(fileURLWithPath: sbert)))
                if let n = raw.max_seq_length {
                    guard n >= 2 else { throw ModelLoadError(file: sbert, reason: "max_seq_length \(n) is below 2") }
                    maxSeqLength = n
                }
            } catch let error as ModelLoadError {
                throw error
            } catch {
                throw ModelLoadError(file: sbert, reason: "cannot read: \(error)")
            }
        }
        let poolingFile = directory + "/1_Pooling/config.json"
        if fm.fileExists(atPath: poolingFile) {
            struct Raw: Decodable {
                var pooling_mode_mean_tokens: Bool?
                var pooling_mode_cls_token: Bool?
                var pooling_mode_max_tokens: Bool?
                var pooling_mode_mean_sqrt_len_tokens: Bool?
            }
            let raw: Raw
            do {
                raw = try JSONDecoder().decode(Raw.self, from: Data(contentsOf: URL(fileURLWithPath: poolingFile)))
            } catch {
                throw ModelLoadError(file: poolingFile, reason: "cannot read: \(error)")
            }
            switch (raw.pooling_mode_mean_tokens ?? false, raw.pooling_mode_cls_token ?? false,
                    raw.pooling_mode_max_tokens ?? false, raw.pooling_mode_mean_sqrt_len_tokens ?? false) {
            case (true, false, false, false): pooling = .mean
            case (false, true, false, false): pooling = .cls
            default:
                throw ModelLoadError(file: poolingFile, reason: "only mean or CLS pooling (exactly one) is supported")
            }
        }
    }
}
