/// Float storage owned by the model (weights rearranged at load time); freed with the last reference.
final class FloatBuffer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    /// Uninitialised storage: every user writes before it reads.
    init(count: Int) {
        self.count = count
        pointer = .allocate(capacity: max(count, 1))
    }

    deinit { pointer.deallocate() }
}

/// One encoder layer's parameters. Linear weights are `[out × in]` row-major (y = x·Wᵀ + b).
struct BertLayerWeights: @unchecked Sendable {
    /// Q, K and V stacked: `[3H × H]` and `[3H]` (owned copies).
    let qkvWeight: UnsafePointer<Float>
    let qkvBias: UnsafePointer<Float>
    let attentionOutWeight: UnsafePointer<Float>  // [H × H]
    let attentionOutBias: UnsafePointer<Float>    // [H]
    let attentionNormGamma: UnsafePointer<Float>  // [H]
    let attentionNormBeta: UnsafePointer<Float>   // [H]
    let intermediateWeight: UnsafePointer<Float>  // [I × H]
    let intermediateBias: UnsafePointer<Float>    // [I]
    let outputWeight: UnsafePointer<Float>        // [H × I]
    let outputBias: UnsafePointer<Float>          // [H]
    let outputNormGamma: UnsafePointer<Float>     // [H]
    let outputNormBeta: UnsafePointer<Float>      // [H]
}

/// All parameters of a BERT encoder, pointing into the memory-mapped safetensors file except for
/// the stacked QKV projections, which are copied once so each layer needs one GEMM for all three.
struct BertWeights: @unchecked Sendable {
    let config: BertConfig
    let wordEmbeddings: UnsafePointer<Float>      // [V × H]
    let positionEmbeddings: UnsafePointer<Float>  // [P × H]
    let tokenTypeEmbeddings: UnsafePointer<Float> // [types × H]
    let embeddingNormGamma: UnsafePointer<Float>  // [H]
    let embeddingNormBeta: UnsafePointer<Float>   // [H]
    let layers: [BertLayerWeights]
    /// Keep the mapping and owned copies alive as long as the pointers above.
    private let file: SafeTensors
    private let owned: FloatBuffer

    init(file: SafeTensors, config c: BertConfig) throws {
        self.file = file
        self.config = c
        let h = c.hiddenSize, i = c.intermediateSize
        // Checkpoints saved from BertForX carry a "bert." prefix.
        let prefix = file.tensors["bert.embeddings.word_embeddings.weight"] != nil ? "bert." : ""
        func t(_ name: String, _ shape: [Int]) throws -> UnsafePointer<Float> {
            try file.floats(prefix + name, shape: shape)
        }
        wordEmbeddings = try t("embeddings.word_embeddings.weight", [c.vocabSize, h])
        positionEmbeddings = try t("embeddings.position_embeddings.weight", [c.maxPositionEmbeddings, h])
        tokenTypeEmbeddings = try t("embeddings.token_type_embeddings.weight", [c.typeVocabSize, h])
        embeddingNormGamma = try t("embeddings.LayerNorm.weight", [h])
        embeddingNormBeta = try t("embeddings.LayerNorm.bias", [h])

        let perLayer = 3 * h * h + 3 * h
        owned = FloatBuffer(count: perLayer * c.numHiddenLayers)
        var layers: [BertLayerWeights] = []
        for k in 0..<c.numHiddenLayers {
            let p = "encoder.layer.\(k)."
            let qkvW = owned.pointer + k * perLayer
            let qkvB = qkvW + 3 * h * h
            for (j, part) in ["query", "key", "value"].enumerated() {
                let w = try t(p + "attention.self.\(part).weight", [h, h])
                let b = try t(p + "attention.self.\(part).bias", [h])
                (qkvW + j * h * h).update(from: w, count: h * h)
                (qkvB + j * h).update(from: b, count: h)
            }
            layers.append(BertLayerWeights(
                qkvWeight: qkvW, qkvBias: qkvB,
                attentionOutWeight: try t(p + "attention.output.dense.weight", [h, h]),
                attentionOutBias: try t(p + "attention.output.dense.bias", [h]),
                attentionNormGamma: try t(p + "attention.output.LayerNorm.weight", [h]),
                attentionNormBeta: try t(p + "attention.output.LayerNorm.bias", [h]),
                intermediateWeight: try t(p + "intermediate.dense.weight", [i, h]),
                intermediateBias: try t(p + "intermediate.dense.bias", [i]),
                outputWeight: try t(p + "output.dense.weight", [h, i]),
                outputBias: try t(p + "output.dense.bias", [h]),
                outputNormGamma: try t(p + "output.LayerNorm.weight", [h]),
                outputNormBeta: try t(p + "output.LayerNorm.bias", [h])))
        }
        self.layers = layers
    }
}
