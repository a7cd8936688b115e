import KindredProtocol
import KindredCore
import JSONRPC

/// The judge of `kindred mcp`: the assistant's own model, asked through MCP sampling.
///
/// A client that declared `capabilities.sampling` in `initialize` counts as one that declared the
/// judge capability, so `patterns.judge = client` asks its model. Each `patterns/judge` question
/// goes out as one `sampling/createMessage`, as `patterns.judge = openai` sends it: the instruction
/// and the answer format as the system prompt, the question (without the instruction) as JSON in the
/// user message. The model's text must hold one JSON object (a fenced block is read too); it is
/// then checked like any judge's answer (`JudgeAnswer.parse`), with the same timeout and caps.
struct SamplingJudgeChannel: ClientChannel {
    let inner: any ClientChannel

    var clientCapabilities: JSONValue? {
        guard let caps = inner.clientCapabilities, caps["sampling"] != nil else { return nil }
        return ["judge": true]
    }

    func request(_ method: String, _ params: JSONValue, timeout: Double, isCancelled: () -> Bool) -> ClientReply {
        guard method == "patterns/judge", case .object(var question) = params else {
            return .error(code: Int64(ErrorCode.methodNotFound.rawValue), message: "an MCP client is asked only judge questions")
        }
        let instruction = question["instruction"]?.stringValue ?? ""
        question["instruction"] = nil
        let user = String(decoding: JSONWriter.bytes(.object(question)), as: UTF8.self)
        let sampling: JSONValue = [
            "messages": [["role": "user", "content": ["type": "text", "text": .string(user)]]],
            "systemPrompt": .string(instruction + "\n\n" + ChatJudge.answerFormat),
            "maxTokens": 400,
            "temperature": 0,
        ]
        switch inner.request("sampling/createMessage", sampling, timeout: timeout, isCancelled: isCancelled) {
        case .result(let r): return Self.answer(r)
        case let other: return other
        }
    }

    /// The JSON object in a `sampling/createMessage` result's text content.
    static func answer(_ result: JSONValue) -> ClientReply {
        let blocks: [JSONValue] = switch result["content"] {
        case .array(let a)?: a
        case let one?: [one]
        case nil: []
        }
        let text = blocks.compactMap { $0["type"]?.stringValue == "text" ? $0["text"]?.stringValue : nil }.joined(separator: "\n")
        guard !text.isEmpty else {
            return .error(code: Int64(ErrorCode.internalError.rawValue), message: "the model's reply has no text content")
        }
        guard let start = text.firstIndex(of: "{"), let end = text.lastIndex(of: "}"), start < end,
              let object = try? JSONParser.parse(Array(text[start...end].utf8)), case .object = object else {
            let shown = text.count > 120 ? String(text.prefix(120)) + "…" : text
            return .error(code: Int64(ErrorCode.internalError.rawValue), message: "the model's reply holds no JSON object: \(shown)")
        }
        return .result(object)
    }
}
