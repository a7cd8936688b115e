import Testing

@Suite struct StoragePlaceholder {}
