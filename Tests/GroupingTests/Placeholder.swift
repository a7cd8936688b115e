import Testing

@Suite struct GroupingPlaceholder {}
