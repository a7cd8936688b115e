import KindredCore
import JSONRPC
import Storage

extension KindredService {
    /// The OpenAI-compatible chat judge of `patterns.judge = openai`.
    func chatJudge(_ settings: JudgeSettings, owner: String, store: RecordStore, _ ctx: RequestContext) -> ((any JudgeAsker)?, String?) {
        (nil, "patterns.judge openai is not available in this build")
    }
}
