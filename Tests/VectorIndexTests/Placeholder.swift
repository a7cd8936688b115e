import Testing

@Suite struct VectorIndexPlaceholder {}
