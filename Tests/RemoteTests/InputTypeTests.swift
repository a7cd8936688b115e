import KindredCore
import Testing
@testable import Remote

@Suite struct InputTypeTests {
    private func json(_ bytes: [UInt8]) throws -> JSONValue { try JSONParser.parse(bytes) }

    @Test func openaiSendsTheInputTypeOnlyWhenOneIsGiven() throws {
        let with = try json(EmbeddingProviderKind.openai.body(model: "m", texts: ["a"], dimension: 8, inputType: "passage"))
        #expect(with["input_type"]?.stringValue == "passage")
        let without = try json(EmbeddingProviderKind.openai.body(model: "m", texts: ["a"], dimension: 8))
        #expect(without["input_type"] == nil)
        #expect(without["model"]?.stringValue == "m" && without["encoding_format"]?.stringValue == "float")
    }

    @Test func geminiSendsTheTaskTypeAndLeavesAnUnsetDimensionToTheModel() throws {
        let body = try json(EmbeddingProviderKind.gemini.body(model: "text-embedding-004", texts: ["a", "b"], dimension: 0, inputType: "RETRIEVAL_QUERY"))
        let requests = try #require(body["requests"]?.arrayValue)
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0["taskType"]?.stringValue == "RETRIEVAL_QUERY" && $0["outputDimensionality"] == nil })
    }

    @Test(arguments: [("query", "RETRIEVAL_QUERY"), ("search_query", "RETRIEVAL_QUERY"), ("document", "RETRIEVAL_DOCUMENT"),
                      ("passage", "RETRIEVAL_DOCUMENT"), ("Search_Document", "RETRIEVAL_DOCUMENT"), ("CLUSTERING", "CLUSTERING")])
    func geminiMapsInputTypesToTaskTypes(given: String, sent: String) throws {
        #expect(try EmbeddingProviderKind.gemini.inputType(given).get() == sent)
    }

    @Test func whatAProviderCannotSendIsRefusedWithTheReason() throws {
        guard case .failure(let g) = EmbeddingProviderKind.gemini.inputType("clustering-ish") else { Issue.record("accepted"); return }
        #expect(g.reason.contains("RETRIEVAL_DOCUMENT") && g.reason.contains("clustering-ish"))
        guard case .failure(let o) = EmbeddingProviderKind.ollama.inputType("query") else { Issue.record("accepted"); return }
        #expect(o.reason.contains("/api/embed"))
        #expect(try EmbeddingProviderKind.openai.inputType("search_document").get() == "search_document")
    }
}

@Suite struct ProviderDimensionTests {
    private func embedder(_ dimension: Int) -> RemoteEmbedder {
        RemoteEmbedder(kind: .openai, endpoint: ProviderEndpoint(provider: "openai", baseURL: "http://127.0.0.1:9", apiKey: Secret(""), connectTimeout: 1,
                                                                 totalTimeout: 1, retry: RetryPolicy(maxAttempts: 1, baseDelay: 0, maxDelay: 0)),
                       model: "m", dimension: dimension, batchSize: 8, maxConcurrent: 1)
    }

    @Test func anUnsetDimensionIsFixedOnce() {
        let e = embedder(0)
        #expect(e.dimension == 0 && e.requestedDimension == 0)
        #expect(e.settle(768) == 768)
        #expect(e.settle(384) == 768 && e.dimension == 768)
    }

    @Test func aConfiguredDimensionIsNeverReplaced() {
        let e = embedder(256)
        #expect(e.settle(768) == 256 && e.requestedDimension == 256)
    }
}
