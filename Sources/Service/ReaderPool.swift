import Dispatch
import KindredCore
import Storage

/// Read-only connections for concurrent reads, at most `capacity` of them open at once. A read takes
/// an idle connection, or opens one while fewer than `capacity` exist, and gives it back after; while
/// all are taken it waits for one. Reads run on a concurrent queue that starts a thread for each read
/// blocked on I/O or a lock, so without the bound a burst of requests would open a connection per
/// thread (each with its own page cache and file descriptors) and keep every one of them idle until
/// the service closes.
final class ReaderPool: Sendable {
    /// How many connections may be open at once when the caller does not say: two reads per core
    /// of a small machine and one waiting on the disk each, beyond which reads only queue anyway.
    static let defaultCapacity = 8

    let capacity: Int
    private let path: String
    private let slots: DispatchSemaphore
    private let connections = Guarded<(idle: [RecordStore], open: Int)>(([], 0))

    /// Whether the current thread already holds one of the pool's connections: a read inside a read
    /// takes a second connection without waiting, since the one it would wait for may be its own
    /// (the extra connection is closed when it comes back).
    @TaskLocal private static var holding = false

    init(path: String, capacity: Int = ReaderPool.defaultCapacity) {
        self.path = path
        self.capacity = max(1, capacity)
        slots = DispatchSemaphore(value: self.capacity)
    }

    func with<T>(_ body: (RecordStore) throws -> T) throws -> T {
        let nested = Self.holding
        if !nested { slots.wait() }
        defer { if !nested { slots.signal() } }
        let store = try take()
        defer { giveBack(store) }
        return try Self.$holding.withValue(true) { try body(store) }
    }

    private func take() throws -> RecordStore {
        if let store = connections.with({ c -> RecordStore? in
            if let store = c.idle.popLast() { return store }
            c.open += 1
            return nil
        }) { return store }
        do {
            return try RecordStore(readerFor: path)
        } catch {
            connections.with { $0.open -= 1 }
            throw error
        }
    }

    private func giveBack(_ store: RecordStore) {
        connections.with { c in
            if c.open > capacity { c.open -= 1 } else { c.idle.append(store) }
        }
    }

    /// Connections open now, in use or idle.
    var openCount: Int { connections.with { $0.open } }

    func close() { connections.with { $0.open -= $0.idle.count; $0.idle.removeAll() } }
}
