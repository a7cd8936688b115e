#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CKernels

/// A block's int8 codes in one region of whole pages that grows in place or moves its pages
/// (`mremap` on Linux). An `Array` grows by allocating a larger buffer and copying every code into
/// it, so an index that grows to N rows writes about twice N rows' worth of fresh memory; here each
/// code byte is written once, and the region starts on a page boundary, so the scan's 64-byte loads
/// never straddle two cache lines. The region is advised for huge pages (on Linux with transparent
/// huge pages in `madvise` mode, as Debian ships), so a scan of a large block takes few TLB misses.
/// Value semantics: a copy shares the region until one of them is changed.
public struct CodeBuffer {
    private final class Storage {
        var base: UnsafeMutablePointer<Int8>?
        var capacity = 0
        /// Bytes at or past this offset were never written since they were mapped: still zero.
        var clean = 0

        init(capacity: Int) { grow(to: capacity) }

        func grow(to n: Int) {
            guard n > capacity else { return }
            let size = Self.pages(n)
            let p = base.map { Self.resize(UnsafeMutableRawPointer($0), from: capacity, to: size) } ?? Self.map(size)
            base = p.assumingMemoryBound(to: Int8.self)
            capacity = size
        }

        static func pages(_ n: Int) -> Int {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            return (n + page - 1) / page * page
        }

        static func map(_ size: Int) -> UnsafeMutableRawPointer {
            guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
                fatalError("out of memory: \(size) bytes of codes")
            }
            kindred_advise_huge(p, size)
            return p
        }

        static func resize(_ p: UnsafeMutableRawPointer, from old: Int, to size: Int) -> UnsafeMutableRawPointer {
            if let q = kindred_remap(p, old, size) {
                kindred_advise_huge(q, size)
                return q
            }
            let q = map(size)
            q.copyMemory(from: p, byteCount: old)
            munmap(p, old)
            return q
        }

        deinit { if let base { munmap(base, capacity) } }
    }

    private var storage: Storage
    public private(set) var count = 0

    public init() { storage = Storage(capacity: 0) }

    /// `count` codes filled by `fill` (which must write all of them).
    public init(count: Int, fill: (UnsafeMutableBufferPointer<Int8>) throws -> Void) rethrows {
        storage = Storage(capacity: count)
        if count > 0 { try fill(UnsafeMutableBufferPointer(start: storage.base!, count: count)) }
        storage.clean = count
        self.count = count
    }

    /// Appends `n` zero codes; the capacity at least doubles when it must grow.
    public mutating func appendZeros(_ n: Int) {
        guard n > 0 else { return }
        unique()
        if count + n > storage.capacity { storage.grow(to: max(count + n, storage.capacity * 2)) }
        let dirty = min(count + n, storage.clean) - count
        if dirty > 0 { (storage.base! + count).update(repeating: 0, count: dirty) }
        count += n
        storage.clean = max(storage.clean, count)
    }

    /// Drops the last `n` codes (the region keeps its size).
    public mutating func removeLast(_ n: Int) {
        precondition(n >= 0 && n <= count, "removing more codes than held")
        count -= n
    }

    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Int8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: count > 0 ? storage.base : nil, count: count))
    }

    public mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Int8>) throws -> R) rethrows -> R {
        unique()
        return try body(UnsafeMutableBufferPointer(start: count > 0 ? storage.base : nil, count: count))
    }

    /// Copies the region before a change when another copy of this buffer shares it.
    private mutating func unique() {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        let copy = Storage(capacity: max(count, 1))
        if count > 0 { copy.base!.update(from: storage.base!, count: count) }
        copy.clean = count
        storage = copy
    }
}
