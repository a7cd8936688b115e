/// A remote provider's failure as Kindred reports it: which provider, the HTTP status when there was
/// one, how many attempts were made, and why. Never carries the API key (see `Secret.scrub`).
public struct ProviderError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No usable answer in time, connection refused, HTTP 429 or 5xx: worth trying again later.
        case unavailable
        /// The provider answered, but not with what was asked: malformed body, wrong count or dimension.
        case badAnswer
        /// Refused for good (4xx other than 408/429): a wrong key, model or URL.
        case refused
        case cancelled
    }

    public let provider: String
    public let kind: Kind
    public let status: Int?
    public let attempts: Int
    public let reason: String

    public init(provider: String, kind: Kind, status: Int? = nil, attempts: Int, reason: String) {
        self.provider = provider
        self.kind = kind
        self.status = status
        self.attempts = attempts
        self.reason = reason
    }

    public var description: String {
        var s = provider
        if let status { s += " HTTP \(status)" }
        s += ": \(reason)"
        if attempts > 1 { s += " (after \(attempts) attempts)" }
        return s
    }
}

/// An API key, kept out of every description.
public struct Secret: Sendable, CustomStringConvertible {
    public let value: String
    public init(_ value: String) { self.value = value }
    public var isEmpty: Bool { value.isEmpty }
    public var description: String { value.isEmpty ? "(none)" : "(set)" }

    /// `text` with every occurrence of the key replaced, for anything echoed from a provider.
    public func scrub(_ text: String) -> String {
        guard value.count >= 4 else { return text }
        return text.replacing(value, with: "[redacted]")
    }
}
