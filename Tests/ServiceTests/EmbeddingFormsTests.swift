import Foundation
import KindredCore
import Synchronization
import Testing
@testable import Service

/// Records every text it was asked to embed (after the role's prefix), then embeds it as `LetterEmbedder` does.
final class RecordingEmbedder: TextEmbedder {
    let modelID = "letters"
    let dimension = 8
    let forms: EmbeddingForms
    let seen = Mutex<[String]>([])
    init(forms: EmbeddingForms) { self.forms = forms }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        seen.withLock { $0 += texts }
        return try LetterEmbedder().embed(texts, isCancelled: isCancelled)
    }
}

@Suite struct EmbeddingPresetTests {
    private func forms(_ settings: [String: String], model: String, provider: String = "openai") throws -> EmbeddingForms {
        var c = Config()
        for (k, v) in settings { try c.set(k, text: v) }
        return try EmbeddingPresets.forms(Settings(c).embedder, model: model, provider: provider)
    }

    @Test(arguments: ["multilingual-e5-small", "intfloat/e5-base-v2", "E5-large", "multilingual-e5-small-q4"])
    func e5ModelsGetQueryAndPassagePrefixes(model: String) throws {
        #expect(try forms([:], model: model) == EmbeddingForms(queryPrefix: "query: ", documentPrefix: "passage: "))
    }

    @Test(arguments: ["all-MiniLM-L6-v2", "text-embedding-3-small", "e5-mistral-7b-instruct", "bge-m3", "test-e5x"])
    func otherModelsGetNoForm(model: String) throws {
        #expect(try forms([:], model: model) == .plain)
    }

    @Test func nomicBgeAndGeminiPresets() throws {
        #expect(try forms([:], model: "nomic-embed-text:v1.5", provider: "ollama") == EmbeddingForms(queryPrefix: "search_query: ", documentPrefix: "search_document: "))
        #expect(try forms([:], model: "BAAI/bge-small-en-v1.5").queryPrefix == EmbeddingPresets.searchInstruction)
        #expect(try forms([:], model: "text-embedding-004", provider: "gemini") == EmbeddingForms(queryInputType: "RETRIEVAL_QUERY", documentInputType: "RETRIEVAL_DOCUMENT"))
        // The Gemini preset is the gemini provider's: the same name elsewhere gets nothing.
        #expect(try forms([:], model: "text-embedding-004", provider: "openai") == .plain)
    }

    @Test func setKeysReplaceThePresetsAndNoneTurnsPresetsOff() throws {
        #expect(try forms(["embedder.documentPrefix": "doc: "], model: "e5-small-v2") == EmbeddingForms(queryPrefix: "query: ", documentPrefix: "doc: "))
        #expect(try forms(["embedder.preset": "none"], model: "e5-small-v2") == .plain)
        #expect(try forms(["embedder.preset": "nomic"], model: "my-finetune") == EmbeddingForms(queryPrefix: "search_query: ", documentPrefix: "search_document: "))
    }

    @Test func withAnInputTypeAnAutomaticPresetLeavesThePrefixesToTheServer() throws {
        let f = try forms(["embedder.queryInputType": "query", "embedder.documentInputType": "passage"], model: "multilingual-e5-small")
        #expect(f == EmbeddingForms(queryInputType: "query", documentInputType: "passage"))
    }

    @Test func geminiInputTypesAreSentAsTaskTypes() throws {
        let f = try forms(["embedder.queryInputType": "query", "embedder.documentInputType": "document"], model: "my-model", provider: "gemini")
        #expect(f.queryInputType == "RETRIEVAL_QUERY" && f.documentInputType == "RETRIEVAL_DOCUMENT")
    }

    @Test func errorsNameTheField() {
        #expect { try forms(["embedder.preset": "e6"], model: "m") } throws: { ($0 as? ConfigError)?.key == "embedder.preset" }
        #expect { try forms(["embedder.documentInputType": "passage"], model: "m", provider: "ollama") } throws: {
            ($0 as? ConfigError)?.key == "embedder.documentInputType" && "\($0)".contains("ollama")
        }
        #expect { try forms(["embedder.queryInputType": "query"], model: "m", provider: "local") } throws: {
            ($0 as? ConfigError)?.key == "embedder.queryInputType" && "\($0)".contains("embedder.queryPrefix")
        }
        #expect { try forms(["embedder.queryInputType": "questions"], model: "m", provider: "gemini") } throws: {
            ($0 as? ConfigError)?.key == "embedder.queryInputType"
        }
    }

    @Test func aMisconfiguredProviderIsUnavailableWithTheFieldNamed() throws {
        var c = Config()
        try c.set("embedder.provider", text: "ollama")
        try c.set("embedder.model", text: "nomic-embed-text")
        try c.set("embedder.queryInputType", text: "query")
        let (embedder, problem) = EmbedderSetup.make(c)
        #expect(embedder == nil)
        #expect(problem?.hasPrefix("embedder.queryInputType: ") == true)
    }
}

@Suite struct EmbeddingRoleTests {
    @Test func searchTextsAreQueriesAndRecordsAreDocuments() throws {
        let embedder = RecordingEmbedder(forms: EmbeddingForms(queryPrefix: "query: ", documentPrefix: "passage: "))
        let f = try ServiceFixture(embedder: embedder)
        #expect(f.service.indexVersion.description == #"letters@8;document-prefix="passage: ""#)
        _ = try f.upsert("me", [rec("a", text: "a cab")])
        #expect(try f.service.embedPending() == 1)
        _ = try f.call("search/query", ["owner": "me", "text": "bad", "mode": "semantic"])
        #expect(embedder.seen.withLock { $0 } == ["passage: a cab", "query: bad"])
        let status = try f.call("index/status", ["owner": "me"])
        #expect(status["indexVersion"]?.stringValue == #"letters@8;document-prefix="passage: ""#)
        #expect(status["vectors"]?.intValue == 1)
    }
}

/// A provider-like embedder whose size is known only from its first answer.
final class LateSizeEmbedder: TextEmbedder {
    let modelID = "late"
    let size = Mutex(0)
    var dimension: Int { size.withLock { $0 } }
    var remoteProvider: String? { "stub" }
    func adoptDimension(_ d: Int) { size.withLock { if $0 == 0 { $0 = d } } }
    func embed(_ texts: [String], isCancelled: () -> Bool) throws -> [[Float]] {
        adoptDimension(8)
        return try LetterEmbedder().embed(texts, isCancelled: isCancelled)
    }
}

@Suite struct ProviderDimensionTests {
    @Test func theFirstAnswerFixesTheDimensionAndTheStoredVectorsKeepIt() throws {
        let f = try ServiceFixture(embedder: LateSizeEmbedder(), dimension: 0)
        #expect(f.service.indexVersion.description == "late@?")
        #expect(f.callError("records/upsert", ["owner": "me", "records": [rec("v", axis: 1)]])?.message.contains("index.dimension") == true)
        _ = try f.upsert("me", [rec("a", text: "a cab"), rec("b", text: "hhh")])
        #expect(try f.service.embedPending() == 2)
        #expect(f.service.indexVersion.description == "late@8")
        let hits = try f.call("search/query", ["owner": "me", "text": "hh", "mode": "semantic", "limit": 1])
        #expect(hits["results"]?[0]?["id"] == "b")
        #expect(try f.upsert("me", [rec("v", axis: 1)]) == ["created"])
        // Reopened: the size comes from the vectors stored for the model, before any answer.
        let again = try f.reopen(embedder: LateSizeEmbedder(), dimension: 0)
        defer { again.close() }
        #expect(again.indexVersion.description == "late@8")
        #expect(try again.call("index/status", ["owner": "me"])["indexed"] == 3)
    }

    @Test func withoutAnEmbedderTheDefaultModelsSizeHolds() throws {
        let f = try ServiceFixture(embedder: nil, dimension: 0)
        #expect(f.service.indexVersion.dimension == KindredService.dimensionWithoutEmbedder)
    }
}

@Suite struct OwnerScaleTests {
    private func records(_ range: ClosedRange<Int>) -> [JSONValue] {
        range.map { i in rec("r\(i)", text: String(repeating: "abcdefgh".map(String.init)[i % 8], count: 1 + i % 5) + " note \(i)") }
    }

    @Test func hybridSearchMeasuresTheScaleOnceAndKeepsItUntilTheCountDoubles() throws {
        let f = try ServiceFixture(embedder: LetterEmbedder())
        _ = try f.upsert("me", records(1...12))
        _ = try f.service.embedPending()
        #expect(try f.call("index/status", ["owner": "me"])["cosineScale"] == nil)
        _ = try f.call("search/query", ["owner": "me", "text": "note", "limit": 3])
        let first = try #require(try f.call("index/status", ["owner": "me"])["cosineScale"])
        #expect(first["records"] == 12)
        let spread = try #require(first["spread"]?.doubleValue)
        #expect(spread > 0 && spread < 1)
        // Below twice the count, the kept scale serves.
        _ = try f.upsert("me", records(13...23))
        _ = try f.service.embedPending()
        _ = try f.call("search/query", ["owner": "me", "text": "note", "limit": 3])
        #expect(try f.call("index/status", ["owner": "me"])["cosineScale"]?["records"] == 12)
        // At twice the count it is measured again (kept, with the new count, unless it moved).
        _ = try f.upsert("me", records(24...24))
        _ = try f.service.embedPending()
        _ = try f.call("search/query", ["owner": "me", "text": "note", "limit": 3])
        #expect(try f.call("index/status", ["owner": "me"])["cosineScale"]?["records"] == 24)
        // Kept in the database: another service on the file reads it without measuring.
        let again = try f.reopen(embedder: LetterEmbedder())
        defer { again.close() }
        #expect(try again.call("index/status", ["owner": "me"])["cosineScale"]?["records"] == 24)
        // Another owner has a scale of its own (none yet).
        #expect(try f.call("index/status", ["owner": "you"])["cosineScale"] == nil)
    }
}
