import Foundation

/// Bounded retries with exponential backoff and full jitter; a `Retry-After` the provider sends is
/// honoured when it is no longer than `maxDelay` (a longer one ends the attempts at once).
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (at least 1).
    public var maxAttempts: Int
    /// Seconds before the first retry, doubled for each later one.
    public var baseDelay: Double
    /// Longest single wait, in seconds.
    public var maxDelay: Double

    public init(maxAttempts: Int, baseDelay: Double, maxDelay: Double) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// Seconds to wait before attempt `attempt + 1` (attempt counts from 1), or nil when no retry
    /// should follow.
    public func delay(afterAttempt attempt: Int, retryAfter: Double?, random: Double = Double.random(in: 0..<1)) -> Double? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter {
            return retryAfter <= maxDelay ? retryAfter : nil
        }
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(attempt - 1)))
        // Full jitter within the upper half: spreads retries of concurrent callers, never zero.
        return ceiling * (0.5 + 0.5 * random)
    }

    /// Sleeps `seconds` in short steps; false when `isCancelled` turned true first.
    static func sleep(_ seconds: Double, isCancelled: () -> Bool) -> Bool {
        var left = seconds
        while left > 0 {
            if isCancelled() { return false }
            let step = min(left, 0.05)
            usleep(UInt32(step * 1_000_000))
            left -= step
        }
        return !isCancelled()
    }
}
