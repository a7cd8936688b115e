#if canImport(Glibc)
import Glibc
#endif

// The locks of Kindred, one for each need:
// - `Mutex` (the standard library's Synchronization) for Sendable state: counters, flags, tables of
//   Sendable values;
// - `Guarded` for a value that is not Sendable (a database connection, a cache of pattern states),
//   which `Mutex.withLock` cannot hand to its closure;
// - `ReadWriteGuarded` where reads run side by side and a write runs alone.

/// A readers–writer lock over pthread_rwlock.
public final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    public init() {
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    public func read<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    public func write<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}

/// An object shared under a readers–writer lock: any number of `read`s run at once, a `write`
/// runs alone. `Value` must be safe to read from several threads at once while nothing writes.
public final class ReadWriteGuarded<Value: AnyObject>: @unchecked Sendable {
    private let value: Value
    private let lock = ReadWriteLock()

    public init(_ value: Value) { self.value = value }

    public func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        try lock.read { try body(value) }
    }

    public func write<T>(_ body: (Value) throws -> T) rethrows -> T {
        try lock.write { try body(value) }
    }
}

/// A value guarded by a mutex; lets a non-Sendable resource (a database connection) be shared safely.
/// For Sendable state use `Mutex`.
public final class Guarded<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func with<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
