import Testing

@Suite struct JSONRPCPlaceholder {}
