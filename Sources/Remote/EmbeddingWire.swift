import KindredCore

/// The three embedding wire formats: what is posted where, and how the answer is read.
public enum EmbeddingProviderKind: String, Sendable, CaseIterable {
    /// `POST {url}/embeddings` — OpenAI, and the same route served by Ollama, llama.cpp and vLLM.
    case openai
    /// `POST {url}/api/embed` — Ollama's own route.
    case ollama
    /// `POST {url}/models/{model}:batchEmbedContents` — Gemini, key in `x-goog-api-key`.
    case gemini

    public var defaultURL: String {
        switch self {
        case .openai: "https://api.openai.com/v1"
        case .ollama: "http://127.0.0.1:11434"
        case .gemini: "https://generativelanguage.googleapis.com/v1beta"
        }
    }

    /// A batch's vectors and what the provider counted.
    struct Answer {
        var vectors: [[Float]]
        var tokens: Int?
    }

    func path(model: String) -> String {
        switch self {
        case .openai: "/embeddings"
        case .ollama: "/api/embed"
        case .gemini: "/\(Self.geminiModel(model)):batchEmbedContents"
        }
    }

    func headers(key: Secret) -> [(name: String, value: String)] {
        guard !key.isEmpty else { return [] }
        switch self {
        case .openai, .ollama: return [("Authorization", "Bearer \(key.value)")]
        case .gemini: return [("x-goog-api-key", key.value)]
        }
    }

    /// The request body. `inputType` is what the texts are (already checked by `inputType(_:)`):
    /// `input_type` for `openai`, `taskType` for `gemini`; `ollama` has no such field.
    /// `dimension` 0 leaves Gemini's `outputDimensionality` to the model.
    func body(model: String, texts: [String], dimension: Int, inputType: String? = nil) -> [UInt8] {
        let input = JSONValue.array(texts.map { .string($0) })
        switch self {
        case .openai:
            var o: JSONObject = ["model": .string(model), "input": input, "encoding_format": "float"]
            if let inputType { o["input_type"] = .string(inputType) }
            return JSONWriter.bytes(.object(o))
        case .ollama:
            return JSONWriter.bytes(["model": .string(model), "input": input])
        case .gemini:
            let name = JSONValue.string(Self.geminiModel(model))
            return JSONWriter.bytes(["requests": .array(texts.map { text in
                var r: JSONObject = ["model": name, "content": ["parts": [["text": .string(text)]]]]
                if dimension > 0 { r["outputDimensionality"] = .int(Int64(dimension)) }
                if let inputType { r["taskType"] = .string(inputType) }
                return .object(r)
            })])
        }
    }

    /// Gemini's task types (`taskType` of an embedding request).
    public static let geminiTaskTypes = ["RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "SEMANTIC_SIMILARITY", "CLASSIFICATION", "CLUSTERING",
                                         "QUESTION_ANSWERING", "FACT_VERIFICATION", "CODE_RETRIEVAL_QUERY"]

    /// The input type as this provider is sent it, or why it cannot be: `openai` sends any value as
    /// it is (`query`, `passage`, `document`, `search_query`… as the server expects); `gemini` maps
    /// `query` / `search_query` to RETRIEVAL_QUERY, `document` / `passage` / `search_document` to
    /// RETRIEVAL_DOCUMENT and takes its own task types as they are; `ollama` has no such field.
    public func inputType(_ value: String) -> Result<String, InputTypeRefused> {
        switch self {
        case .openai:
            return .success(value)
        case .ollama:
            return .failure(InputTypeRefused(reason: "the ollama provider cannot send an input type (POST /api/embed takes only model and input); use a prefix, or the openai provider at Ollama's /v1"))
        case .gemini:
            switch value.lowercased() {
            case "query", "search_query": return .success("RETRIEVAL_QUERY")
            case "document", "passage", "search_document": return .success("RETRIEVAL_DOCUMENT")
            default:
                if Self.geminiTaskTypes.contains(value) { return .success(value) }
                return .failure(InputTypeRefused(reason: "gemini takes query, document or one of its task types (\(Self.geminiTaskTypes.joined(separator: ", "))), not '\(value)'"))
            }
        }
    }

    func parse(_ bytes: [UInt8]) throws(AnswerError) -> Answer {
        let doc: JSONValue
        do { doc = try JSONParser.parse(bytes) } catch { throw AnswerError("answer is not JSON: \(error)") }
        switch self {
        case .openai:
            guard let data = doc["data"]?.arrayValue else { throw AnswerError("answer has no data array") }
            var indexed: [(Int, [Float])] = []
            for (k, item) in data.enumerated() {
                let index = item["index"]?.intValue.map(Int.init) ?? k
                indexed.append((index, try Self.floats(item["embedding"], at: "data[\(k)].embedding")))
            }
            guard Set(indexed.map(\.0)).count == indexed.count else { throw AnswerError("answer repeats an index") }
            let tokens = doc["usage"]?["prompt_tokens"]?.intValue ?? doc["usage"]?["total_tokens"]?.intValue
            return Answer(vectors: indexed.sorted { $0.0 < $1.0 }.map(\.1), tokens: tokens.map(Int.init))
        case .ollama:
            guard let list = doc["embeddings"]?.arrayValue else { throw AnswerError("answer has no embeddings array") }
            var vectors: [[Float]] = []
            for (k, v) in list.enumerated() { vectors.append(try Self.floats(v, at: "embeddings[\(k)]")) }
            return Answer(vectors: vectors, tokens: doc["prompt_eval_count"]?.intValue.map(Int.init))
        case .gemini:
            guard let list = doc["embeddings"]?.arrayValue else { throw AnswerError("answer has no embeddings array") }
            var vectors: [[Float]] = []
            for (k, v) in list.enumerated() { vectors.append(try Self.floats(v["values"], at: "embeddings[\(k)].values")) }
            return Answer(vectors: vectors, tokens: nil)
        }
    }

    static func floats(_ v: JSONValue?, at path: String) throws(AnswerError) -> [Float] {
        guard let items = v?.arrayValue else { throw AnswerError("\(path) is not an array of numbers") }
        var out: [Float] = []
        out.reserveCapacity(items.count)
        for x in items {
            guard let d = x.doubleValue, d.isFinite else { throw AnswerError("\(path) holds \(x.typeName == "number" ? "a non-finite number" : "a \(x.typeName)")") }
            out.append(Float(d))
        }
        return out
    }

    /// `text-embedding-004` → `models/text-embedding-004` (a name already prefixed is kept).
    static func geminiModel(_ model: String) -> String { model.hasPrefix("models/") ? model : "models/" + model }
}

/// Why a provider cannot be told an input type.
public struct InputTypeRefused: Error, Sendable {
    public let reason: String
}
