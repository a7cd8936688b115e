/// What one piece of work asked of a remote provider.
public struct RemoteUsage: Sendable, Equatable {
    public var provider: String
    /// Logical calls (one per batch), retries not counted.
    public var calls: Int = 0
    /// HTTP exchanges, retries included.
    public var attempts: Int = 0
    /// Unicode scalars of the texts sent.
    public var inputCharacters: Int = 0
    /// Tokens, when the provider reported them.
    public var tokens: Int? = nil

    public init(provider: String, calls: Int = 0, attempts: Int = 0, inputCharacters: Int = 0, tokens: Int? = nil) {
        self.provider = provider
        self.calls = calls
        self.attempts = attempts
        self.inputCharacters = inputCharacters
        self.tokens = tokens
    }

    public mutating func add(_ other: RemoteUsage) {
        calls += other.calls
        attempts += other.attempts
        inputCharacters += other.inputCharacters
        if let t = other.tokens { tokens = (tokens ?? 0) + t }
    }
}
