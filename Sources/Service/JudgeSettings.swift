import KindredCore

/// Who decides automatic memberships besides similarity (`patterns.judge`).
enum JudgeMode: String, Sendable, CaseIterable {
    /// Similarity alone (the engine's rules).
    case off
    /// The client's own model, asked with `patterns/judge` requests (it declares `capabilities.judge`).
    case client
    /// An OpenAI-compatible chat completion (`patterns.judgeUrl`, `patterns.judgeModel`).
    case openai
}

/// The judge's configuration, read once per refresh.
struct JudgeSettings: Sendable {
    let mode: JudgeMode
    let instruction: String
    /// Longest wait for one answer, in seconds.
    let timeout: Double
    /// Questions sent per refresh at most (`patterns.judgeBudget`).
    let budget: Int

    /// The instruction every question carries unless `patterns.judgeInstruction` replaces it.
    static let defaultInstruction = """
        Compare the occurrence's original excerpt with the candidate group's representative and examples. \
        Identify a specific shared element (an action, relationship, setting or emotional situation) and any important difference. \
        Do not match on a broad mood or a common noun alone, and do not assume unnamed people share an identity. \
        Keep weak connections separate. Suggest a descriptive label rather than a personality explanation. \
        Respect the stored corrections and their notes.
        """

    init(_ patterns: PatternSettings) throws(ConfigError) {
        let text = patterns.judge
        guard let mode = JudgeMode(rawValue: text) else {
            throw ConfigError(key: "patterns.judge", reason: "expected off, client or openai, got '\(text)'")
        }
        self.mode = mode
        let instruction = patterns.judgeInstruction
        self.instruction = instruction.isEmpty ? Self.defaultInstruction : instruction
        timeout = patterns.judgeTimeout
        guard patterns.judgeBudget >= 0 else {
            throw ConfigError(key: "patterns.judgeBudget", reason: "must be 0 or more, got \(patterns.judgeBudget)")
        }
        budget = patterns.judgeBudget
    }
}
