import Kernels
import Dispatch
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
///     inner   [N × I]    feed-forward activations (int8, long inputs: `int8Tile` rows per worker)
///     scratch [3·T·H + T·d + T²]  one sequence's Q, K, V by head, a head's Kᵀ and attention matrix, per worker
struct BertEncoder: Sendable {
    let weights: BertWeights
    /// Threads that share each dense product of a short input (see `shortInput`): the output columns
    /// are cut into parts that idle threads take in turn, and the calling thread takes any part no
    /// other thread has started, so a busy machine costs at most the one-thread time. Every output is
    /// summed the same way whichever thread computes it, so the result does not depend on this.
    var shortInputThreads = 1
    /// The dense layers quantised to int8 (nil: float32), one per encoder layer.
    let quantized: [QuantizedLayer]?

    init(weights: BertWeights, shortInputThreads: Int = 1, precision: Precision = .float32) {
        self.weights = weights
        self.shortInputThreads = shortInputThreads
        let c = weights.config
        quantized = precision == .int8
            ? weights.layers.map { QuantizedLayer($0, hidden: c.hiddenSize, intermediate: c.intermediateSize) } : nil
    }

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

        // Short inputs (a search query) run on the calling thread, their products with the small
        // kernels below and never through BLAS: waking BLAS worker threads for a product of a few
        // rows costs more than it saves, and on a busy machine far more (BLAS threads do not hand
        // work back). Their dense products may be shared (`shortInputThreads`). Longer inputs use
        // BLAS for the dense layers and spread the rest over as many threads as BLAS may use.
        let short = n < Self.shortInput
        let workers = short ? 1 : max(1, min(BLAS.threads, 8))
        let hidden = FloatBuffer(count: n * h), qkv = FloatBuffer(count: n * 3 * h)
        let context = FloatBuffer(count: n * h), scratch = FloatBuffer(count: n * h)
        let innerBuf = FloatBuffer(count: quantized != nil && !short ? 0 : n * inner)
        // int8, short inputs: each dense layer's input rows quantised (bytes padded to a multiple of 4) and
        // their scales. Long inputs quantise `int8Tile` rows at a time into each worker's own buffer.
        let q8 = Int8Input(rows: QuantizedRows(rows: quantized == nil || !short ? 0 : n, maxInputs: max(h, inner)), workers: workers)
        // Each worker's scratch for one sequence's attention: its Q, K and V by head, a head's Kᵀ and attention matrix (`FloatKernels.attention`).
        let headScratch = (0..<workers).map { _ in FloatBuffer(count: FloatKernels.attentionScratch(rows: longest, heads: heads, width: d)) }
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
        for (index, layer) in weights.layers.enumerated() {
            if isCancelled() { throw CancellationError() }
            let ql = quantized?[index]
            // qkv = x · Wqkvᵀ + b
            dense(x, layer.qkvWeight, ql?.qkv, qkv.pointer, from: .bias(layer.qkvBias), rows: n, outputs: 3 * h, inputs: h, short: short, q8)

            // context = softmax(Q·Kᵀ/√d) · V per sequence and head, with the small kernels and never
            // through BLAS (BLAS threads are set once at start and never changed here). Short inputs:
            // on this thread. Longer ones: each of the workers takes every workers-th sequence with
            // its own scratch.
            Parallel.run(workers: min(workers, lengths.count)) { worker, count in
                for s in stride(from: worker, to: lengths.count, by: count) {
                    FloatKernels.attention(qkv.pointer + offsets[s] * 3 * h, stride: 3 * h, rows: lengths[s], heads: heads, width: d, scale: scale,
                                           into: context.pointer + offsets[s] * h, stride: h, scratch: headScratch[worker].pointer)
                }
            }

            if let ql, !short {
                // Both blocks below, row by row, in int8 tiles that stay in cache.
                afterAttentionInt8(context.pointer, x, y, layer, ql, rows: n, eps: c.layerNormEps, workers: workers)
                continue
            }
            // x = LayerNorm(x + context · Woᵀ + bo)
            dense(context.pointer, layer.attentionOutWeight, ql?.attentionOut, y, from: .residual(x, bias: layer.attentionOutBias),
                  rows: n, outputs: h, inputs: h, short: short, q8)
            layerNorm(y, rows: n, cols: h, gamma: layer.attentionNormGamma, beta: layer.attentionNormBeta,
                      eps: c.layerNormEps, workers: workers)
            swap(&x, &y)

            // x = LayerNorm(x + GELU(x · W1ᵀ + b1) · W2ᵀ + b2)
            dense(x, layer.intermediateWeight, ql?.intermediate, innerBuf.pointer, from: .bias(layer.intermediateBias),
                  rows: n, outputs: inner, inputs: h, short: short, q8)
            let act = innerBuf.pointer
            Parallel.chunks(n, workers: workers) { rows in
                Activations.gelu(act + rows.lowerBound * inner, count: rows.count * inner)
            }
            dense(innerBuf.pointer, layer.outputWeight, ql?.output, y, from: .residual(x, bias: layer.outputBias),
                  rows: n, outputs: h, inputs: inner, short: short, q8)
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

    /// Inputs of fewer tokens than this (all of a batch together) run on the calling thread, with
    /// the dense products shared by `shortInputThreads` threads.
    static let shortInput = 64
    /// Fewest output columns worth a part of their own in a shared short-input product.
    static let partColumns = 96

    /// Where an int8 dense layer quantises its input rows, and the threads that share a long input.
    struct Int8Input: @unchecked Sendable {
        let rows: QuantizedRows
        let workers: Int
    }

    /// What a dense layer's output starts from before its product is added: its bias in every row, or
    /// the residual stream's row plus the bias.
    enum Start {
        case bias(UnsafePointer<Float>)
        case residual(UnsafePointer<Float>, bias: UnsafePointer<Float>)

        /// The bias when the start is the bias alone: an int8 product then adds it itself (`QuantizedDense.apply`).
        var biasOnly: UnsafePointer<Float>? {
            if case .bias(let b) = self { return b }
            return nil
        }

        /// Sets rows `rows` of y (`cols` wide) to the start.
        func fill(_ y: UnsafeMutablePointer<Float>, rows: Range<Int>, cols: Int) {
            let at = rows.lowerBound * cols
            switch self {
            case .bias(let b): RowKernels.fillRows(y + at, with: b, rows: rows.count, cols: cols)
            case .residual(let x, let b): RowKernels.addRowBias(x + at, b, into: y + at, rows: rows.count, cols: cols)
            }
        }
    }

    /// y[rows × outputs] = start + x[rows × inputs] · Wᵀ (W stored outputs × inputs, as in the checkpoint),
    /// in int8 when the layer is quantised (`q`).
    private func dense(
        _ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ q: QuantizedDense?, _ y: UnsafeMutablePointer<Float>, from start: Start,
        rows: Int, outputs: Int, inputs: Int, short: Bool, _ q8: Int8Input
    ) {
        if let q {
            denseInt8(x, q, y, from: start, rows: rows, short: short, q8)
            return
        }
        start.fill(y, rows: 0..<rows, cols: outputs)
        if short {
            // Parts of a multiple of 4 columns (the kernel's block), two per thread so that a
            // thread that starts late still finds work.
            let parts = shortInputThreads > 1 ? min(2 * shortInputThreads, outputs / Self.partColumns) : 1
            if parts <= 1 {
                FloatKernels.multiplyTransposed(x, stride: inputs, w, stride: inputs, into: y, stride: outputs, m: rows, n: outputs, k: inputs, accumulate: true)
                return
            }
            let per = ((outputs + parts - 1) / parts + 3) & ~3
            nonisolated(unsafe) let (xs, ws, ys) = (x, w, y)
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let first = part * per, count = min(per, outputs - first)
                if count > 0 { FloatKernels.multiplyTransposed(xs, stride: inputs, ws + first * inputs, stride: inputs, into: ys + first, stride: outputs,
                                                                m: rows, n: count, k: inputs, accumulate: true) }
            }
        } else {
            BLAS.gemm(x, w, y, m: rows, n: outputs, k: inputs, transB: true, beta: 1)
        }
    }

    /// Rows of a long input that an int8 product takes at a time: their quantised inputs, their outputs
    /// and the layer's weights stay in the core's own cache while every output channel is computed.
    static let int8Tile = 64

    /// The int8 product: a short input quantised on this thread and its output channels shared in parts
    /// of a multiple of 16 (as `dense` shares float columns); a long one cut into row ranges, each worker
    /// starting, quantising and multiplying its own rows, `int8Tile` at a time. Every output is the same
    /// whichever thread computes it and however the rows are cut.
    private func denseInt8(_ x: UnsafePointer<Float>, _ q: QuantizedDense, _ y: UnsafeMutablePointer<Float>, from start: Start,
                           rows: Int, short: Bool, _ q8: Int8Input) {
        let outputs = q.outputs, all = 0..<rows, buffer = q8.rows
        nonisolated(unsafe) let bias = start.biasOnly
        if short {
            if bias == nil { start.fill(y, rows: all, cols: outputs) }
            q.quantize(x, rows: all, into: buffer)
            let parts = shortInputThreads > 1 ? min(2 * shortInputThreads, outputs / Self.partColumns) : 1
            if parts <= 1 {
                q.apply(buffer, rows: all, bias: bias, into: y, columns: 0..<outputs)
                return
            }
            let per = ((outputs + parts - 1) / parts + 15) & ~15
            nonisolated(unsafe) let ys = y
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let first = part * per, end = min(first + per, outputs)
                if first < end { q.apply(buffer, rows: all, bias: bias, into: ys, columns: first..<end) }
            }
        } else {
            Parallel.chunks(rows, workers: q8.workers) { r in
                let buffer = QuantizedRows(rows: Self.int8Tile, maxInputs: q.inputs)
                for first in stride(from: r.lowerBound, to: r.upperBound, by: Self.int8Tile) {
                    let tile = first..<min(first + Self.int8Tile, r.upperBound)
                    if bias == nil { start.fill(y, rows: tile, cols: outputs) }
                    q.quantize(x + first * q.inputs, rows: 0..<tile.count, into: buffer)
                    q.apply(buffer, rows: 0..<tile.count, bias: bias, into: y + first * outputs, columns: 0..<outputs)
                }
            }
        }
    }

    /// What follows the attention in a layer, for a long input in int8, `int8Tile` rows at a time on
    /// each worker: mid = LayerNorm(x + bo + context · Woᵀ) into `mid`, then x = LayerNorm(mid + b2 +
    /// GELU(mid · W1ᵀ + b1) · W2ᵀ) back into `x` (the two buffers' roles after both swaps of the
    /// float path). A tile's rows, its intermediate activations (a buffer of the worker's) and each
    /// layer's weights stay in the core's cache from one step to the next. Row by row the same
    /// arithmetic, in the same order, as the steps one after the other over every row.
    private func afterAttentionInt8(_ context: UnsafePointer<Float>, _ x: UnsafeMutablePointer<Float>, _ mid: UnsafeMutablePointer<Float>,
                                    _ layer: BertLayerWeights, _ q: QuantizedLayer, rows: Int, eps: Float, workers: Int) {
        let h = q.intermediate.inputs, i = q.intermediate.outputs
        Parallel.chunks(rows, workers: workers) { r in
            let buffer = QuantizedRows(rows: Self.int8Tile, maxInputs: i), activations = FloatBuffer(count: Self.int8Tile * i)
            let inner = activations.pointer
            for first in stride(from: r.lowerBound, to: r.upperBound, by: Self.int8Tile) {
                let tile = first..<min(first + Self.int8Tile, r.upperBound), local = 0..<tile.count
                let m = mid + first * h, xt = x + first * h
                q.attentionOut.quantize(context + first * h, rows: local, into: buffer)
                q.attentionOut.apply(buffer, rows: local, bias: layer.attentionOutBias, residual: xt, into: m, columns: 0..<h)
                LayerNorm.rows(m, rows: tile.count, cols: h, gamma: layer.attentionNormGamma, beta: layer.attentionNormBeta, eps: eps)
                q.intermediate.quantize(m, rows: local, into: buffer)
                q.intermediate.apply(buffer, rows: local, bias: layer.intermediateBias, into: inner, columns: 0..<i)
                Activations.gelu(inner, count: tile.count * i)
                q.output.quantize(inner, rows: local, into: buffer)
                q.output.apply(buffer, rows: local, bias: layer.outputBias, residual: m, into: xt, columns: 0..<h)
                LayerNorm.rows(xt, rows: tile.count, cols: h, gamma: layer.outputNormGamma, beta: layer.outputNormBeta, eps: eps)
            }
        }
    }

    /// LayerNorm of each row, the rows split over `workers` threads.
    private func layerNorm(
        _ x: UnsafeMutablePointer<Float>, rows: Int, cols: Int, gamma: UnsafePointer<Float>,
        beta: UnsafePointer<Float>, eps: Float, workers: Int
    ) {
        Parallel.chunks(rows, workers: workers) { r in
            LayerNorm.rows(x + r.lowerBound * cols, rows: r.count, cols: cols, gamma: gamma, beta: beta, eps: eps)
        }
    }
}
