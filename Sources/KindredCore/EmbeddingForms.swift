/// What a text is embedded as: a search text (`query`) or a stored text (`document`: records,
/// passages, occurrences). Models trained for retrieval embed the two differently.
public enum EmbeddingRole: String, Sendable, CaseIterable {
    case query, document
}

/// How the texts of each role are handed to the model: a text prepended to each (for servers that
/// know nothing of the model, e.g. `query: ` / `passage: ` for e5) and an input type the provider is
/// told (`input_type` for OpenAI-compatible servers, `taskType` for Gemini). Empty means none.
/// The document half changes stored vectors, so it is part of the index version.
public struct EmbeddingForms: Sendable, Hashable {
    public var queryPrefix: String
    public var documentPrefix: String
    public var queryInputType: String
    public var documentInputType: String

    public init(queryPrefix: String = "", documentPrefix: String = "", queryInputType: String = "", documentInputType: String = "") {
        self.queryPrefix = queryPrefix
        self.documentPrefix = documentPrefix
        self.queryInputType = queryInputType
        self.documentInputType = documentInputType
    }

    /// Texts as they are, no input type.
    public static let plain = EmbeddingForms()

    public func prefix(_ role: EmbeddingRole) -> String { role == .query ? queryPrefix : documentPrefix }

    /// The input type of `role`, nil when none is configured.
    public func inputType(_ role: EmbeddingRole) -> String? {
        let t = role == .query ? queryInputType : documentInputType
        return t.isEmpty ? nil : t
    }

    /// `texts` with the role's prefix prepended.
    public func prepare(_ texts: [String], as role: EmbeddingRole) -> [String] {
        let p = prefix(role)
        return p.isEmpty ? texts : texts.map { p + $0 }
    }
}
