import Foundation

/// BERT uncased WordPiece tokenizer over a `vocab.txt` (one piece per line, id = line number).
///
/// The vocabulary is keyed by UTF-8 bytes, never by `String`, so canonically equivalent but
/// differently encoded pieces stay distinct, exactly as in the reference implementation.
public struct WordPieceTokenizer: Sendable {
    /// Words longer than this many scalars become `[UNK]`.
    public static let maxScalarsPerWord = 100

    public let clsID: Int32
    public let sepID: Int32
    public let unkID: Int32
    public let padID: Int32
    public var vocabularySize: Int { pieces.count }

    private let ids: [[UInt8]: Int32]
    private let pieces: [String]

    public init(vocabFile: String) throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: vocabFile))
        } catch {
            throw ModelLoadError(file: vocabFile, reason: "cannot read vocabulary: \(error.localizedDescription)")
        }
        var ids: [[UInt8]: Int32] = [:]
        var pieces: [String] = []
        ids.reserveCapacity(32_768)
        var line: [UInt8] = []
        func finish() {
            // Trailing whitespace (e.g. a CR) is not part of a piece.
            while let last = line.last, last == 0x20 || last == 0x09 || last == 0x0D { line.removeLast() }
            let id = Int32(pieces.count)
            if ids[line] == nil { ids[line] = id }
            pieces.append(String(decoding: line, as: UTF8.self))
            line.removeAll(keepingCapacity: true)
        }
        for byte in data {
            if byte == 0x0A { finish() } else { line.append(byte) }
        }
        if !line.isEmpty { finish() }

        func special(_ token: String) throws -> Int32 {
            guard let id = ids[Array(token.utf8)] else {
                throw ModelLoadError(file: vocabFile, reason: "vocabulary has no \(token)")
            }
            return id
        }
        self.ids = ids
        self.pieces = pieces
        clsID = try special("[CLS]")
        sepID = try special("[SEP]")
        unkID = try special("[UNK]")
        padID = try special("[PAD]")
    }

    /// Token ids of `text` wrapped as `[CLS] … [SEP]`, keeping at most `maxTokens` ids in all
    /// (the pieces are truncated to `maxTokens - 2`).
    public func encode(_ text: String, maxTokens: Int) -> [Int32] {
        let limit = max(0, maxTokens - 2)
        var out: [Int32] = [clsID]
        out.reserveCapacity(min(limit, text.utf8.count) + 2)
        var count = 0
        outer: for word in BertPreTokenizer.words(text) {
            for id in wordPieces(word) {
                if count == limit { break outer }
                out.append(id)
                count += 1
            }
        }
        out.append(sepID)
        return out
    }

    /// The WordPiece strings of `text`, without `[CLS]`/`[SEP]` and without truncation.
    public func tokens(_ text: String) -> [String] {
        BertPreTokenizer.words(text).flatMap { wordPieces($0).map { pieces[Int($0)] } }
    }

    /// Number of pieces of `text`, without `[CLS]`/`[SEP]` and without truncation.
    public func pieceCount(_ text: String) -> Int {
        BertPreTokenizer.words(text).reduce(0) { $0 + wordPieces($1).count }
    }

    /// Greedy longest-match-first WordPiece of one word; the whole word is `[UNK]` if any position
    /// has no match.
    func wordPieces(_ word: [Unicode.Scalar]) -> [Int32] {
        if word.count > Self.maxScalarsPerWord { return [unkID] }
        // UTF-8 bytes of the word and the byte offset where each scalar starts (plus the end).
        var bytes: [UInt8] = []
        var bounds: [Int] = []
        bytes.reserveCapacity(word.count * 2)
        bounds.reserveCapacity(word.count + 1)
        for s in word {
            bounds.append(bytes.count)
            bytes.append(contentsOf: UTF8.encode(s)!)
        }
        bounds.append(bytes.count)

        var result: [Int32] = []
        var start = 0
        var key: [UInt8] = []
        while start < word.count {
            var end = word.count
            var found: Int32?
            while end > start {
                key.removeAll(keepingCapacity: true)
                if start > 0 { key.append(0x23); key.append(0x23) }  // "##"
                key.append(contentsOf: bytes[bounds[start]..<bounds[end]])
                if let id = ids[key] { found = id; break }
                end -= 1
            }
            guard let id = found else { return [unkID] }
            result.append(id)
            start = end
        }
        return result
    }
}
