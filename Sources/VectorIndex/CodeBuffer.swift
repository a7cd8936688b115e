#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A block's int8 codes in one `malloc` region that grows with `realloc`. An `Array` grows by
/// allocating a larger buffer and copying every code into it, so an index that grows to N rows
/// writes about twice N rows' worth of fresh memory; `realloc` of a large region moves its pages
/// instead (glibc uses `mremap` above the mmap threshold), and each new code byte is written
/// once. Value semantics: a copy shares the region until one of them is changed.
struct CodeBuffer {
    private final class Storage {
        var base: UnsafeMutablePointer<Int8>?
        var capacity = 0

        init(capacity: Int) { grow(to: capacity) }

        func grow(to n: Int) {
            guard n > capacity else { return }
            guard let p = realloc(base, n) else { fatalError("out of memory: \(n) bytes of codes") }
            base = p.assumingMemoryBound(to: Int8.self)
            capacity = n
        }

        deinit { free(base) }
    }

    private var storage: Storage
    private(set) var count = 0

    init() { storage = Storage(capacity: 0) }

    /// `count` codes filled by `fill` (which must write all of them).
    init(count: Int, fill: (UnsafeMutableBufferPointer<Int8>) throws -> Void) rethrows {
        storage = Storage(capacity: count)
        if count > 0 { try fill(UnsafeMutableBufferPointer(start: storage.base!, count: count)) }
        self.count = count
    }

    /// Appends `n` zero codes; the capacity at least doubles when it must grow.
    mutating func appendZeros(_ n: Int) {
        guard n > 0 else { return }
        unique()
        if count + n > storage.capacity { storage.grow(to: max(count + n, storage.capacity * 2)) }
        (storage.base! + count).initialize(repeating: 0, count: n)
        count += n
    }

    /// Drops the last `n` codes (the region keeps its size).
    mutating func removeLast(_ n: Int) {
        precondition(n >= 0 && n <= count, "removing more codes than held")
        count -= n
    }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Int8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: count > 0 ? storage.base : nil, count: count))
    }

    mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Int8>) throws -> R) rethrows -> R {
        unique()
        return try body(UnsafeMutableBufferPointer(start: count > 0 ? storage.base : nil, count: count))
    }

    /// Copies the region before a change when another copy of this buffer shares it.
    private mutating func unique() {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        let copy = Storage(capacity: max(count, 1))
        if count > 0 { copy.base!.update(from: storage.base!, count: count) }
        storage = copy
    }
}
