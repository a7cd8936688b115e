/// Text to the ids a model reads: WordPiece for BERT vocabularies (`vocab.txt`), SentencePiece
/// unigram for XLM-R's (`tokenizer.json`).
public protocol SentenceTokenizer: Sendable {
    /// Pieces in the vocabulary.
    var vocabularySize: Int { get }
    /// Token ids of `text` between the model's start and end tokens, at most `maxTokens` ids in all.
    func encode(_ text: String, maxTokens: Int) -> [Int32]
    /// The pieces of `text`, without the start and end tokens and without truncation.
    func tokens(_ text: String) -> [String]
    /// Number of pieces of `text`, without the start and end tokens and without truncation.
    func pieceCount(_ text: String) -> Int
}

extension WordPieceTokenizer: SentenceTokenizer {}
