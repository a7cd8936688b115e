import Foundation

/// XLM-R's SentencePiece unigram tokeniser (multilingual-e5), read from a HuggingFace
/// `tokenizer.json` and run as HuggingFace tokenizers runs it:
///
/// 1. normalise with the model's precompiled charsmap (NFKC and SentencePiece's "nmt" rules);
/// 2. split on white space (transformers' XLM-R pipeline; older tokenizer.json files instead collapse
///    runs of spaces), then Metaspace: spaces become `▁`, a `▁` is put first unless there is one,
///    and the text is split before every `▁` ("▁Hello▁world" → "▁Hello", "▁world");
/// 3. per word, Viterbi over the pieces' log-probabilities; a character no piece covers is
///    `<unk>` (score: the lowest piece score − 10), and neighbouring unknowns make one `<unk>`;
/// 4. wrap as `<s> … </s>` (ids 0 … 2 in XLM-R's vocabulary, whose ids are SentencePiece's plus one).
///
/// Pieces are matched on UTF-8 bytes, never on `String` equality (canonical equivalence would merge
/// distinct pieces).
public struct UnigramTokenizer: SentenceTokenizer {
    public let bosID: Int32
    public let eosID: Int32
    public let unkID: Int32
    public var vocabularySize: Int { scores.count }

    private let charsmap: PrecompiledCharsmap?
    /// `WhitespaceSplit` before `Metaspace`: white space separates words and is dropped.
    private let splitsOnWhitespace: Bool
    private let scores: [Double]
    private let unkScore: Double
    private let pieces: PieceTable

    /// Reads `tokenizer.json`; errors name the file and the field that is missing or unsupported.
    public init(file: String) throws {
        func fail(_ reason: String) -> ModelLoadError { ModelLoadError(file: file, reason: reason) }
        let root: [String: Any]
        do {
            root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any] ?? [:]
        } catch {
            throw fail("cannot read: \(error)")
        }
        guard let model = root["model"] as? [String: Any], model["type"] as? String == "Unigram",
              let vocab = model["vocab"] as? [[Any]], !vocab.isEmpty
        else { throw fail("model: expected a Unigram model with a vocab") }
        if model["byte_fallback"] as? Bool == true { throw fail("model.byte_fallback is not supported") }
        var strings: [String] = []
        var scores: [Double] = []
        strings.reserveCapacity(vocab.count)
        scores.reserveCapacity(vocab.count)
        for (i, entry) in vocab.enumerated() {
            guard entry.count == 2, let piece = entry[0] as? String, let score = (entry[1] as? NSNumber)?.doubleValue else {
                throw fail("model.vocab[\(i)]: expected [piece, score]")
            }
            strings.append(piece)
            scores.append(score)
        }
        guard let unk = model["unk_id"] as? Int, scores.indices.contains(unk) else { throw fail("model.unk_id: missing or out of range") }
        self.scores = scores
        unkScore = (scores.min() ?? 0) - 10
        unkID = Int32(unk)
        pieces = PieceTable(strings)

        charsmap = try Self.charsmap(root["normalizer"], fail: fail)
        let pre = root["pre_tokenizer"] as? [String: Any]
        let steps = pre?["type"] as? String == "Sequence" ? pre?["pretokenizers"] as? [[String: Any]] ?? [] : pre.map { [$0] } ?? []
        let kinds = steps.map { $0["type"] as? String ?? "" }
        guard kinds == ["Metaspace"] || kinds == ["WhitespaceSplit", "Metaspace"], let meta = steps.last,
              meta["replacement"] as? String == "▁", (meta["prepend_scheme"] as? String ?? "always") == "always",
              meta["split"] as? Bool ?? true
        else {
            throw fail("pre_tokenizer: expected Metaspace (replacement ▁, prepend_scheme always, split), optionally after WhitespaceSplit")
        }
        splitsOnWhitespace = kinds.count == 2
        func special(_ name: String) throws -> Int32 {
            guard let post = root["post_processor"] as? [String: Any],
                  let tokens = post["special_tokens"] as? [String: Any],
                  let token = tokens[name] as? [String: Any], let ids = token["ids"] as? [Int], ids.count == 1,
                  scores.indices.contains(ids[0])
            else { throw fail("post_processor.special_tokens.\(name): missing") }
            return Int32(ids[0])
        }
        bosID = try special("<s>")
        eosID = try special("</s>")
    }

    /// The normaliser: `Precompiled`, optionally followed by `Replace` of " {2,}" with " " (the only
    /// replacement this tokeniser knows; anything else is refused rather than ignored).
    private static func charsmap(_ value: Any?, fail: (String) -> ModelLoadError) throws -> PrecompiledCharsmap? {
        guard let normalizer = value as? [String: Any] else { return nil }
        let steps = normalizer["type"] as? String == "Sequence" ? normalizer["normalizers"] as? [[String: Any]] ?? [] : [normalizer]
        var found: PrecompiledCharsmap?
        for step in steps {
            switch step["type"] as? String {
            case "Precompiled":
                guard let text = step["precompiled_charsmap"] as? String, let data = Data(base64Encoded: text) else {
                    throw fail("normalizer: precompiled_charsmap is not base64")
                }
                do { found = try PrecompiledCharsmap(Array(data)) } catch { throw fail("normalizer: \(error)") }
            case "Replace":
                let pattern = (step["pattern"] as? [String: Any])?["Regex"] as? String
                guard pattern == " {2,}", step["content"] as? String == " " else {
                    throw fail("normalizer: only Replace of \" {2,}\" with \" \" is supported")
                }
            case let other:
                throw fail("normalizer: \(other ?? "?") is not supported")
            }
        }
        return found
    }

    public func encode(_ text: String, maxTokens: Int) -> [Int32] {
        let limit = max(0, maxTokens - 2)
        var out: [Int32] = [bosID]
        out.reserveCapacity(min(limit, text.utf8.count) + 2)
        for id in ids(text).prefix(limit) { out.append(id) }
        out.append(eosID)
        return out
    }

    public func tokens(_ text: String) -> [String] {
        words(text).flatMap { word in viterbi(word).map { range in
            let id = pieces.id(of: word[range]) ?? unkID
            return id == unkID ? "<unk>" : String(decoding: word[range], as: UTF8.self)
        } }
    }

    public func pieceCount(_ text: String) -> Int {
        words(text).reduce(0) { $0 + viterbi($1).count }
    }

    func ids(_ text: String) -> [Int32] {
        words(text).flatMap { word in viterbi(word).map { pieces.id(of: word[$0]) ?? unkID } }
    }

    /// Steps 1 and 2: the normalised words, as UTF-8, each starting with `▁` but maybe the first.
    func words(_ text: String) -> [[UInt8]] {
        let normalized = (charsmap?.normalize(text) ?? text).unicodeScalars
        var chunks: [[Unicode.Scalar]] = []
        if splitsOnWhitespace {
            var current: [Unicode.Scalar] = []
            for s in normalized {
                if s.properties.isWhitespace {
                    if !current.isEmpty { chunks.append(current) }
                    current = []
                } else {
                    current.append(s)
                }
            }
            if !current.isEmpty { chunks.append(current) }
        } else {
            var scalars: [Unicode.Scalar] = []
            for s in normalized where !(s == " " && scalars.last == " ") { scalars.append(s) }
            if !scalars.isEmpty { chunks.append(scalars) }
        }
        let meta: Unicode.Scalar = "\u{2581}"
        var words: [[UInt8]] = []
        for chunk in chunks {
            var current: [UInt8] = []
            if chunk[0] != " " && chunk[0] != meta { current.append(contentsOf: String(meta).utf8) }
            for s in chunk {
                let scalar = s == " " ? meta : s
                if scalar == meta, !current.isEmpty {
                    words.append(current)
                    current = []
                }
                current.append(contentsOf: String(scalar).utf8)
            }
            if !current.isEmpty { words.append(current) }
        }
        return words
    }

    /// Step 3: the best segmentation of one word, as byte ranges. Ties keep the earlier candidate
    /// (shorter pieces are tried first), as the reference does.
    func viterbi(_ word: [UInt8]) -> [Range<Int>] {
        let n = word.count
        var score = [Double](repeating: 0, count: n + 1)
        var from = [Int](repeating: -1, count: n + 1)
        var isUnknown = [Bool](repeating: false, count: n + 1)
        var start = 0
        while start < n {
            let charLength = Self.utf8Length(word[start])
            let base = score[start]
            var hasSingle = false
            var hash = PieceTable.seed
            var end = start
            while end < n, end - start < pieces.maxLength {
                hash = PieceTable.mix(hash, word[end])
                end += 1
                if end < n, Self.isContinuation(word[end]) { continue }
                guard let id = pieces.find(word[start..<end], hash: hash) else { continue }
                let candidate = base + scores[Int(id)]
                if from[end] < 0 || candidate > score[end] {
                    score[end] = candidate
                    from[end] = start
                    isUnknown[end] = id == unkID
                }
                if end - start == charLength { hasSingle = true }
            }
            let next = min(n, start + charLength)
            if !hasSingle, from[next] < 0 || base + unkScore > score[next] {
                score[next] = base + unkScore
                from[next] = start
                isUnknown[next] = true
            }
            start = next
        }
        var ranges: [Range<Int>] = []
        var end = n, previousUnknown = false
        while end > 0 {
            let begin = from[end]
            if isUnknown[end], previousUnknown {
                ranges[ranges.count - 1] = begin..<ranges[ranges.count - 1].upperBound
            } else {
                ranges.append(begin..<end)
            }
            previousUnknown = isUnknown[end]
            end = begin
        }
        return ranges.reversed()
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }
}

/// The vocabulary as an open-addressing hash table over the pieces' UTF-8 bytes (FNV-1a), so a
/// piece is found from a slice of the input with no allocation.
struct PieceTable: Sendable {
    private let bytes: [UInt8]
    private let offsets: [Int]
    private let slots: [Int32]
    let maxLength: Int

    static let seed: UInt64 = 0xCBF2_9CE4_8422_2325
    static func mix(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }

    init(_ pieces: [String]) {
        var bytes: [UInt8] = []
        var offsets = [0]
        for p in pieces {
            bytes += p.utf8
            offsets.append(bytes.count)
        }
        var size = 1
        while size < pieces.count * 2 { size <<= 1 }
        var slots = [Int32](repeating: -1, count: size)
        var longest = 1
        for i in pieces.indices {
            let range = offsets[i]..<offsets[i + 1]
            if range.isEmpty { continue }
            longest = max(longest, range.count)
            var h = Self.seed
            for b in bytes[range] { h = Self.mix(h, b) }
            var slot = Int(h & UInt64(size - 1))
            while slots[slot] >= 0 {
                // The first of two identical pieces keeps the id, as a dictionary built in order would not:
                // identical pieces do not occur in SentencePiece vocabularies.
                slot = (slot + 1) & (size - 1)
            }
            slots[slot] = Int32(i)
        }
        self.bytes = bytes
        self.offsets = offsets
        self.slots = slots
        maxLength = longest
    }

    func id(of piece: ArraySlice<UInt8>) -> Int32? {
        var h = Self.seed
        for b in piece { h = Self.mix(h, b) }
        return find(piece, hash: h)
    }

    func find(_ piece: ArraySlice<UInt8>, hash: UInt64) -> Int32? {
        let mask = slots.count - 1
        var slot = Int(hash & UInt64(mask))
        while true {
            let id = slots[slot]
            if id < 0 { return nil }
            let range = offsets[Int(id)]..<offsets[Int(id) + 1]
            if range.count == piece.count, bytes[range].elementsEqual(piece) { return id }
            slot = (slot + 1) & mask
        }
    }
}
