import Embedding
import Testing

@Suite("WordPiece tokenizer against the reference")
struct TokenizerTests {
    @Test("token ids equal the reference exactly", arguments: 0..<56)
    func tokenIDs(index: Int) throws {
        let reference = try Reference.load()
        let sentence = try #require(reference.sentences.indices.contains(index) ? reference.sentences[index] : nil)
        let embedder = try Model.embedder()
        let ids = embedder.tokenizer.encode(sentence.text, maxTokens: embedder.maxTokens)
        #expect(ids == sentence.token_ids, "text: \(sentence.text.debugDescription)")
    }

    @Test func piecesMatchReferenceTokens() throws {
        let reference = try Reference.load()
        let tokenizer = try Model.embedder().tokenizer
        for sentence in reference.sentences where !sentence.truncated {
            #expect(tokenizer.tokens(sentence.text) == Array(sentence.tokens.dropFirst().dropLast()),
                    "text: \(sentence.text.debugDescription)")
        }
    }

    @Test func tokenCountCountsSpecialsAndIgnoresTruncation() throws {
        let reference = try Reference.load()
        let embedder = try Model.embedder()
        #expect(embedder.tokenCount("") == 2)
        for sentence in reference.sentences {
            let count = embedder.tokenCount(sentence.text)
            if sentence.truncated {
                #expect(count > embedder.maxTokens)
            } else {
                #expect(count == sentence.num_tokens)
            }
        }
    }

    @Test func documentedExamples() throws {
        let tokenizer = try Model.embedder().tokenizer
        #expect(tokenizer.tokens("Price: €12.50") == ["price", ":", "€", "##12", ".", "50"])
        #expect(tokenizer.tokens("我今天很高兴") == ["我", "[UNK]", "天", "[UNK]", "高", "[UNK]"])
        #expect(tokenizer.tokens("ＦＵＬＬＷＩＤＴＨ") == ["[UNK]"])
        #expect(tokenizer.tokens("zero\u{200B}width") == tokenizer.tokens("zerowidth"))
        #expect(tokenizer.tokens(String(repeating: "a", count: 101)) == ["[UNK]"])
        #expect(tokenizer.encode("", maxTokens: 256) == [101, 102])
        #expect(tokenizer.encode("a b c d", maxTokens: 4) == [101, 1037, 1038, 102])
    }
}
