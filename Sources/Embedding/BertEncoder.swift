import LinearAlgebra

/// The BERT encoder forward pass plus pooling, for a batch of token-id sequences.
///
/// All tokens of a batch are packed, without padding, into one `[N × H]` matrix (N = ΣTᵢ) so each
/// dense layer is one GEMM over the whole batch; self-attention runs per sequence and per head at
/// the sequence's own length, so no mask is needed. Buffers (N = tokens, H = hidden, I = intermediate,
/// T = longest sequence):
///
///     hidden  [N × H]    residual stream
///     qkv     [N × 3H]   Q | K | V, head h at columns h·d ..< (h+1)·d of each third
///     context [N × H]    attention output before the output projection
///     scratch [N × H]    residual + projection; swapped with `hidden` after each LayerNorm
///     inner   [N × I]    feed-forward activations
///     scores  [T × T]    one head's attention matrix
struct BertEncoder: Sendable {
    let weights: BertWeights

    enum Pooling: Sendable { case mean, cls }

    /// Pooled, L2-normalised embeddings, one per sequence. Every sequence must be non-empty, no longer
    /// than max_position_embeddings, with ids below vocab_size.
    func embed(_ sequences: [[Int32]], pooling: Pooling, isCancelled: () -> Bool) throws -> [[Float]] {
        let c = weights.config
        let h = c.hiddenSize, inner = c.intermediateSize, heads = c.numAttentionHeads, d = c.headSize
        let lengths = sequences.map(\.count)
        precondition(lengths.allSatisfy { $0 > 0 && $0 <= c.maxPositionEmbeddings }, "bad sequence length")
        let n = lengths.reduce(0, +)
        guard n > 0 else { return [] }
        let longest = lengths.max() ?? 0
        var offsets: [Int] = []
        offsets.reserveCapacity(lengths.count)
        var running = 0
        for t in lengths { offsets.append(running); running += t }

        // Non-GEMM work is spread over as many threads as BLAS may use (short inputs stay on one).
        let workers = n >= 64 ? max(1, min(BLAS.threads, 8)) : 1
        let hidden = FloatBuffer(count: n * h), qkv = FloatBuffer(count: n * 3 * h)
        let context = FloatBuffer(count: n * h), scratch = FloatBuffer(count: n * h)
        let innerBuf = FloatBuffer(count: n * inner)
        let scores = (0..<workers).map { _ in FloatBuffer(count: longest * longest) }
        // `x` is the residual stream; each sub-layer writes into `y` and the two are swapped.
        var x = hidden.pointer, y = scratch.pointer

        // Embeddings: word + position + token type 0, then LayerNorm.
        for (s, ids) in sequences.enumerated() {
            for (t, id) in ids.enumerated() {
                precondition(id >= 0 && Int(id) < c.vocabSize, "token id out of range")
                let row = x + (offsets[s] + t) * h
                let w = weights.wordEmbeddings + Int(id) * h
                let p = weights.positionEmbeddings + t * h
                let tt = weights.tokenTypeEmbeddings
                for j in 0..<h { row[j] = w[j] + p[j] + tt[j] }
            }
        }
        layerNorm(x, rows: n, cols: h, gamma: weights.embeddingNormGamma, beta: weights.embeddingNormBeta,
                  eps: c.layerNormEps, workers: workers)

        let scale = 1 / Float(d).squareRoot()
        for layer in weights.layers {
            if isCancelled() { throw CancellationError() }
            // qkv = x · Wqkvᵀ + b
            Kernels.fillRows(qkv.pointer, with: layer.qkvBias, rows: n, cols: 3 * h)
            BLAS.gemm(x, layer.qkvWeight, qkv.pointer, m: n, n: 3 * h, k: h, transB: true, beta: 1)

            // context = softmax(Q·Kᵀ/√d) · V per sequence and head; with several workers each
            // takes every workers-th (sequence, head) pair with its own scores buffer, and BLAS runs
            // single-threaded inside them.
            let pairs = lengths.count * heads
            if workers > 1 { BLAS.setThreads(1) }
            Parallel.run(workers: min(workers, pairs)) { worker, count in
                let sc = scores[worker].pointer
                for pair in stride(from: worker, to: pairs, by: count) {
                    let s = pair / heads, head = pair % heads, t = lengths[s]
                    let q = qkv.pointer + offsets[s] * 3 * h + head * d, k = q + h, v = q + 2 * h
                    BLAS.gemm(q, k, sc, m: t, n: t, k: d, transB: true, alpha: scale, lda: 3 * h, ldb: 3 * h, ldc: t)
                    Kernels.softmaxRows(sc, rows: t, cols: t)
                    BLAS.gemm(sc, v, context.pointer + offsets[s] * h + head * d, m: t, n: d, k: t, lda: t, ldb: 3 * h, ldc: h)
                }
            }
            if workers > 1 { BLAS.setThreads(workers) }

            // x = LayerNorm(x + context · Woᵀ + bo)
            Kernels.addRowBias(x, layer.attentionOutBias, into: y, rows: n, cols: h)
            BLAS.gemm(context.pointer, layer.attentionOutWeight, y, m: n, n: h, k: h, transB: true, beta: 1)
            layerNorm(y, rows: n, cols: h, gamma: layer.attentionNormGamma, beta: layer.attentionNormBeta,
                      eps: c.layerNormEps, workers: workers)
            swap(&x, &y)

            // x = LayerNorm(x + GELU(x · W1ᵀ + b1) · W2ᵀ + b2)
            Kernels.fillRows(innerBuf.pointer, with: layer.intermediateBias, rows: n, cols: inner)
            BLAS.gemm(x, layer.intermediateWeight, innerBuf.pointer, m: n, n: inner, k: h,
                      transB: true, beta: 1)
            let act = innerBuf.pointer
            Parallel.chunks(n, workers: workers) { rows in
                Kernels.gelu(act + rows.lowerBound * inner, count: rows.count * inner)
            }
            Kernels.addRowBias(x, layer.outputBias, into: y, rows: n, cols: h)
            BLAS.gemm(innerBuf.pointer, layer.outputWeight, y, m: n, n: h, k: inner, transB: true, beta: 1)
            layerNorm(y, rows: n, cols: h, gamma: layer.outputNormGamma, beta: layer.outputNormBeta,
                      eps: c.layerNormEps, workers: workers)
            swap(&x, &y)
        }
        if isCancelled() { throw CancellationError() }

        let output = x
        return lengths.indices.map { s in
            var out = [Float](repeating: 0, count: h)
            out.withUnsafeMutableBufferPointer { buf in
                let v = buf.baseAddress!
                let first = output + offsets[s] * h
                switch pooling {
                case .cls:
                    v.update(from: first, count: h)
                case .mean:
                    for t in 0..<lengths[s] {
                        let row = first + t * h
                        for j in 0..<h { v[j] += row[j] }
                    }
                    let inv = 1 / Float(lengths[s])
                    for j in 0..<h { v[j] *= inv }
                }
                Vectors.normalize(v, count: h)
            }
            return out
        }
    }

    /// LayerNorm of each row, the rows split over `workers` threads.
    private func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int, gamma: UnsafePointer<Float>,
        beta: UnsafePointer<Float>, eps: Float, workers: Int
    ) {
        Parallel.chunks(rows, workers: workers) { r in
            Kernels.layerNorm(x + r.lowerBound * cols, rows: r.count, cols: cols, gamma: gamma, beta: beta, eps: eps)
        }
    }
}
