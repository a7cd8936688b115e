import Dispatch

/// At most `limit` calls at once to one provider, across every request and background job.
final class ConcurrencyLimit: Sendable {
    private let slots: DispatchSemaphore
    init(_ limit: Int) { slots = DispatchSemaphore(value: max(1, limit)) }

    /// Runs `body` once a slot is free; gives up (returns nil) when `isCancelled` turns true first.
    func run<T, E: Error>(isCancelled: () -> Bool, _ body: () throws(E) -> T) throws(E) -> T? {
        while slots.wait(timeout: .now() + 0.05) == .timedOut {
            if isCancelled() { return nil }
        }
        defer { slots.signal() }
        return try body()
    }
}
