import KindredCore
import JSONRPC
import Remote
import Storage

extension KindredService {
    /// The OpenAI-compatible chat judge of `patterns.judge = openai`, or why there is none.
    /// `store`: the transaction the usage is counted in; nil counts it in a write of its own.
    func chatJudge(_ settings: JudgeSettings, owner: String, store: RecordStore?, _ ctx: RequestContext) -> ((any JudgeAsker)?, String?) {
        let model = self.settings.patterns.judgeModel
        guard !model.isEmpty else { return (nil, "patterns.judge is openai, but patterns.judgeModel is empty") }
        EmbedderSetup.prepareCurl()
        let url = self.settings.patterns.judgeUrl
        let endpoint = ProviderEndpoint(
            provider: ChatJudge.provider, baseURL: url.isEmpty ? "https://api.openai.com/v1" : url,
            apiKey: Secret(self.settings.patterns.judgeApiKey),
            connectTimeout: self.settings.embedder.connectTimeout, totalTimeout: settings.timeout,
            retry: RetryPolicy(maxAttempts: self.settings.embedder.maxRetries + 1, baseDelay: self.settings.embedder.retryBase,
                               maxDelay: self.settings.embedder.retryMax))
        let chat = ChatCompletion(provider: ChatJudge.provider, endpoint: endpoint, model: model, maxConcurrent: 1)
        return (ChatJudge(chat: chat, service: self, owner: owner, store: store, ctx: ctx), nil)
    }
}

/// The judge's question as one chat completion: the instruction and the answer format as the
/// system message, the question (without the instruction) as JSON in the user message.
struct ChatJudge: JudgeAsker {
    static let provider = "openai-judge"
    let chat: ChatCompletion
    let service: KindredService
    let owner: String
    let store: RecordStore?
    let ctx: RequestContext
    var name: String { "openai" }

    static let answerFormat = """
        The user message is the question as JSON: the occurrence, the candidate group (its representative and \
        examples; id null for a group being founded) and the notes written with stored corrections. \
        Answer with one JSON object and nothing else: {"match": true or false, "sharedElement": "the specific \
        shared element (required when match is true)", "difference": "any important difference", \
        "label": "a short descriptive label for the group, or null"}.
        """

    func ask(_ params: JSONValue) -> Result<JSONValue, JudgeFailure> {
        guard case .object(var question) = params else { return .failure(JudgeFailure(description: "no question")) }
        let instruction = question["instruction"]?.stringValue ?? ""
        question["instruction"] = nil
        let system = instruction + "\n\n" + Self.answerFormat
        let user = String(decoding: JSONWriter.bytes(.object(question)), as: UTF8.self)
        do {
            try service.checkDailyLimits(owner: owner, texts: [system + user], store: store)
        } catch {
            return .failure(JudgeFailure(description: "\(error)"))
        }
        do throws(RemoteCallError) {
            let (answer, usage) = try chat.answer(system: system, user: user, isCancelled: { ctx.isCancelled },
                                                  onRetry: { ctx.log(.warning, "patterns/judge: \($0)") })
            service.record(usage, owner: owner, store: store)
            return .success(answer)
        } catch {
            service.record(error.usage, owner: owner, store: store)
            return .failure(JudgeFailure(description: error.description))
        }
    }
}
