import Embedding
import Foundation
import Testing

/// The reference outputs of sentence-transformers, from `Fixtures/minilm_reference.json`.
struct Reference: Decodable, Sendable {
    struct Sentence: Decodable, Sendable {
        let id: Int
        let text: String
        let num_tokens: Int
        let truncated: Bool
        let token_ids: [Int32]
        let tokens: [String]
        let embedding: [Float]
    }
    let sentences: [Sentence]

    static let shared: Result<Reference, any Error> = Result {
        guard let url = Bundle.module.url(forResource: "minilm_reference", withExtension: "json",
                                          subdirectory: "Fixtures")
        else { throw FixtureMissing() }
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    static func load() throws -> Reference { try shared.get() }
    struct FixtureMissing: Error, CustomStringConvertible {
        var description: String { "Fixtures/minilm_reference.json is missing from the test bundle" }
    }
}

/// The real model, found like the server finds it. Tests that need it fail (not skip) when absent.
enum Model {
    static let directory = ModelLocation.defaultDirectory()

    struct Missing: Error, CustomStringConvertible {
        let directory: String
        var description: String {
            "all-MiniLM-L6-v2 not found at \(directory) (model.safetensors missing): run scripts/fetch-model.sh "
                + "or set KINDRED_MODEL_DIR"
        }
    }

    static let shared: Result<SentenceEmbedder, any Error> = Result {
        guard FileManager.default.fileExists(atPath: directory + "/model.safetensors") else {
            throw Missing(directory: directory)
        }
        return try SentenceEmbedder(modelDirectory: directory)
    }

    static func embedder() throws -> SentenceEmbedder { try shared.get() }
}

func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Float = 0, na: Float = 0, nb: Float = 0
    for i in a.indices { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i] }
    return dot / (na.squareRoot() * nb.squareRoot())
}

func maxAbsDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
}
