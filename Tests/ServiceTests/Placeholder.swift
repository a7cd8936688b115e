import Testing

@Suite struct ServicePlaceholder {}
