import Testing
@testable import Remote

@Suite struct RetryPolicyTests {
    @Test func backoffDoublesWithinJitterAndStopsAtTheBound() {
        let p = RetryPolicy(maxAttempts: 4, baseDelay: 0.5, maxDelay: 1.5)
        #expect(p.delay(afterAttempt: 1, retryAfter: nil, random: 0) == 0.25)
        #expect(p.delay(afterAttempt: 1, retryAfter: nil, random: 0.999)! < 0.5)
        #expect(p.delay(afterAttempt: 2, retryAfter: nil, random: 0) == 0.5)
        // Capped by maxDelay.
        #expect(p.delay(afterAttempt: 3, retryAfter: nil, random: 0.999)! <= 1.5)
        #expect(p.delay(afterAttempt: 4, retryAfter: nil) == nil)
    }

    @Test func retryAfterIsHonouredOnlyUpToTheLongestWait() {
        let p = RetryPolicy(maxAttempts: 3, baseDelay: 0.1, maxDelay: 2)
        #expect(p.delay(afterAttempt: 1, retryAfter: 2) == 2)
        #expect(p.delay(afterAttempt: 1, retryAfter: 60) == nil)
    }

    @Test func secretsAreScrubbedAndNeverDescribed() {
        let key = Secret("sk-test-1234567890")
        #expect(key.description == "(set)")
        #expect(key.scrub("bad key sk-test-1234567890 given") == "bad key [redacted] given")
    }
}

@Suite struct EmbeddingWireTests {
    @Test func openaiAnswersAreOrderedByIndex() throws {
        let body = Array(#"{"data":[{"index":1,"embedding":[0,1]},{"index":0,"embedding":[1,0]}],"usage":{"prompt_tokens":7}}"#.utf8)
        let a = try EmbeddingProviderKind.openai.parse(body)
        #expect(a.vectors == [[1, 0], [0, 1]])
        #expect(a.tokens == 7)
    }

    @Test(arguments: [
        (EmbeddingProviderKind.openai, #"{"data":[{"embedding":"x"}]}"#),
        (.ollama, #"{"embeddings":[[1,null]]}"#),
        (.gemini, #"{"embedding":{"values":[1]}}"#),
        (.openai, #"<html>"#),
    ])
    func malformedAnswersAreRefusedWithAReason(kind: EmbeddingProviderKind, body: String) {
        #expect(throws: AnswerError.self) { try kind.parse(Array(body.utf8)) }
    }

    @Test func geminiBodyNamesTheModelAndTheDimension() throws {
        let body = EmbeddingProviderKind.gemini.body(model: "text-embedding-004", texts: ["a"], dimension: 8)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""model":"models/text-embedding-004""#))
        #expect(text.contains(#""outputDimensionality":8"#))
        #expect(EmbeddingProviderKind.gemini.path(model: "text-embedding-004") == "/models/text-embedding-004:batchEmbedContents")
        #expect(EmbeddingProviderKind.gemini.headers(key: Secret("k-123456")).map(\.name) == ["x-goog-api-key"])
    }
}
