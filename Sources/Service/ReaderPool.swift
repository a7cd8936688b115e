import KindredCore
import Storage

/// Read-only connections for concurrent reads; one is taken per read and returned after.
final class ReaderPool: Sendable {
    private let path: String
    private let idle = Guarded<[RecordStore]>([])

    init(path: String) { self.path = path }

    func with<T>(_ body: (RecordStore) throws -> T) throws -> T {
        let store = try idle.with { $0.popLast() } ?? RecordStore(readerFor: path)
        defer { idle.with { $0.append(store) } }
        return try body(store)
    }

    func close() { idle.with { $0.removeAll() } }
}
