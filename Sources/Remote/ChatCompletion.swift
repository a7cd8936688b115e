public import KindredCore

/// An OpenAI-compatible chat completion (`POST {url}/chat/completions`: OpenAI, Gemini's
/// OpenAI-compatible endpoint, Ollama, llama.cpp) that answers with one JSON object: the
/// `response_format` is `json_object`, temperature 0, and the first choice's message content must
/// parse as a JSON object. Same timeouts and bounded retries as the embedders (`ProviderCall`);
/// the key travels only in the `Authorization` header.
public final class ChatCompletion: Sendable {
    /// The name usage is counted under.
    public let provider: String
    public let endpoint: ProviderEndpoint
    public let model: String
    private let limit: ConcurrencyLimit

    public init(provider: String, endpoint: ProviderEndpoint, model: String, maxConcurrent: Int) {
        self.provider = provider
        self.endpoint = endpoint
        self.model = model
        self.limit = ConcurrencyLimit(maxConcurrent)
    }

    /// The request body of one exchange.
    public func body(system: String, user: String) -> [UInt8] {
        JSONWriter.bytes([
            "model": .string(model),
            "messages": [["role": "system", "content": .string(system)], ["role": "user", "content": .string(user)]],
            "response_format": ["type": "json_object"],
            "temperature": 0,
        ])
    }

    /// Asks once (with retries) and returns the JSON object the model answered and what was used.
    public func answer(system: String, user: String, isCancelled: () -> Bool,
                       onRetry: (String) -> Void = { _ in }) throws(RemoteCallError) -> (answer: JSONValue, usage: RemoteUsage) {
        var usage = RemoteUsage(provider: provider, calls: 1, inputCharacters: system.unicodeScalars.count + user.unicodeScalars.count)
        let headers: [(name: String, value: String)] = endpoint.apiKey.isEmpty ? [] : [("Authorization", "Bearer \(endpoint.apiKey.value)")]
        let result: (value: (JSONValue, Int?), attempts: Int)?
        do {
            result = try limit.run(isCancelled: isCancelled) { () throws(ProviderError) in
                try ProviderCall.run(endpoint, path: "/chat/completions", headers: headers, body: body(system: system, user: user),
                                     isCancelled: isCancelled, onRetry: onRetry) { bytes throws(AnswerError) in try Self.parse(bytes) }
            }
        } catch {
            usage.attempts += error.attempts
            throw RemoteCallError(error: error, usage: usage)
        }
        guard let result else {
            throw RemoteCallError(error: ProviderError(provider: provider, kind: .cancelled, attempts: 0, reason: "cancelled"), usage: usage)
        }
        usage.attempts += result.attempts
        usage.tokens = result.value.1
        return (result.value.0, usage)
    }

    /// `choices[0].message.content`, parsed as a JSON object; the tokens the provider counted.
    static func parse(_ bytes: [UInt8]) throws(AnswerError) -> (JSONValue, Int?) {
        let doc: JSONValue
        do { doc = try JSONParser.parse(bytes) } catch { throw AnswerError("answer is not JSON: \(error)") }
        guard let choices = doc["choices"]?.arrayValue, let first = choices.first else { throw AnswerError("answer has no choices") }
        guard case .string(let content)? = first["message"]?["content"] else { throw AnswerError("choices[0].message.content is not a string") }
        let answer: JSONValue
        do { answer = try JSONParser.parse(Array(content.utf8)) } catch {
            throw AnswerError("choices[0].message.content is not JSON: \(error)")
        }
        guard case .object = answer else { throw AnswerError("choices[0].message.content is not a JSON object") }
        let tokens = doc["usage"]?["total_tokens"]?.intValue ?? doc["usage"]?["prompt_tokens"]?.intValue
        return (answer, tokens.map(Int.init))
    }
}

/// A failed remote call and what it had used by then.
public struct RemoteCallError: Error, Sendable, CustomStringConvertible {
    public let error: ProviderError
    public let usage: RemoteUsage
    public var description: String { error.description }
}
