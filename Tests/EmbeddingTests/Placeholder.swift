import Testing

@Suite struct EmbeddingPlaceholder {}
