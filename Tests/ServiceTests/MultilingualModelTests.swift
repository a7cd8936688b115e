import Embedding
import Foundation
import KindredCore
import Testing
@testable import Service

/// `embedder.model` multilingual-e5-small with the local provider: the model installed by
/// scripts/fetch-e5-model.sh, its "query: " / "passage: " forms, every language served.
@Suite struct MultilingualModelTests {
    static let directory = ModelLocation.directory(forModel: "multilingual-e5-small")
    static var installed: Bool { FileManager.default.fileExists(atPath: directory + "/model.safetensors") }

    @Test func theNameFindsItsFolder() throws {
        var c = Config()
        try c.set("embedder.model", text: "multilingual-e5-small")
        #expect(EmbedderSetup.modelDirectory(c) == Self.directory)
        try c.set("embedder.provider", text: "openai")
        #expect(EmbedderSetup.modelDirectory(c) == ModelLocation.defaultDirectory())
        try c.set("embedder.provider", text: "local")
        try c.set("embedder.modelDirectory", text: "/elsewhere")
        #expect(EmbedderSetup.modelDirectory(c) == "/elsewhere")
    }

    @Test(.enabled(if: installed, "multilingual-e5-small is not installed: run scripts/fetch-e5-model.sh"))
    func searchesAcrossLanguagesWithTheE5Forms() throws {
        var c = Config()
        try c.set("embedder.model", text: "multilingual-e5-small")
        let (made, problem) = EmbedderSetup.make(c)
        let embedder = try #require(made, "\(problem ?? "")")
        #expect(try EmbeddingPresets.languages(Settings(c).embedder) == nil)
        let f = try ServiceFixture(embedder: embedder, dimension: 384)
        #expect(f.service.indexVersion.description.hasPrefix("multilingual-e5-small@384"))
        #expect(f.service.indexVersion.description.hasSuffix(#"document-prefix="passage: ""#))
        _ = try f.upsert("me", [
            rec("de", text: "Die Katze schläft zusammengerollt auf dem warmen Sofa."),
            rec("ja", text: "株価は今日、急落しました。"),
            rec("es", text: "El tren a Sevilla sale a las ocho de la mañana."),
        ])
        #expect(try f.service.embedPending() == 3)
        func top(_ text: String) throws -> String? {
            let hits = try f.call("search/query", ["owner": "me", "text": .string(text), "mode": "semantic", "limit": 1])
            return hits["results"]?.arrayValue?.first?["id"]?.stringValue
        }
        #expect(try top("a cat sleeping on the couch") == "de")
        #expect(try top("stock prices fell sharply") == "ja")
        #expect(try top("朝の電車の時刻") == "es")
    }
}
