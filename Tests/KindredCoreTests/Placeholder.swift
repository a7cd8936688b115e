import Testing

@Suite struct KindredCorePlaceholder {}
