#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Kernels

// The C calls, named apart from `CodesFile.write` / `read`.
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
private func systemRead(_ fd: Int32, _ p: UnsafeMutableRawPointer, _ n: Int) -> Int { read(fd, p, n) }

/// The index's codes saved to a file, so that a start reads them back in one pass instead of coding
/// every row from SQLite again. The file is derived data: the caller decides from SQLite whether it
/// is current (the `token` written here must match the one it recorded there) and falls back to the
/// rows in SQLite otherwise. A torn, truncated or foreign file is refused (size and checksum).
///
/// Layout (host byte order): magic, format, dimension, token, owner count; per owner its name, row
/// count, group count, then rowids, scales, errors, sums and codes as `Int8RowCodes` holds them;
/// finally the checksum of everything before it.
public enum CodesFile {
    static let magic: UInt64 = 0x3145_444F_4344_4E4B  // "KNDCODE1"
    static let format: UInt32 = 1

    public enum Failure: Error, Equatable {
        case io(String)
        case notACodesFile
        case otherToken
        case damaged
    }

    /// Writes `index` to `path`: a temporary file renamed over `path`, so a reader sees the old file
    /// or the new one whole. Not synced: the file is derived data, and a file a crash left torn or
    /// empty fails its size or checksum check at the next start, which then codes the rows from
    /// SQLite again (syncing 400 MB at 1 000 000 rows would cost more than the rest of a close).
    public static func write(_ index: VectorIndex, to path: String, token: String) throws {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw Failure.io("cannot create \(tmp)") }
        var ok = false
        defer {
            close(fd)
            if !ok { unlink(tmp) }
        }
        var out = Writer(fd: fd)
        try out.put(magic)
        try out.put(format)
        try out.put(UInt32(index.dimension))
        try out.put(string: token)
        let owners = index.blocks.keys.sorted()
        try out.put(UInt64(owners.count))
        for owner in owners {
            let b = index.blocks[owner]!
            try out.put(string: owner)
            try out.put(UInt64(b.count))
            try out.put(UInt64(b.groups))
            try out.put(array: b.rowids)
            try out.put(array: b.codes.scales)
            try out.put(array: b.codes.errors)
            try out.put(array: b.codes.sums)
            try b.codes.codes.withUnsafeBufferPointer { try out.raw($0.baseAddress, $0.count) }
        }
        var sum = out.sum
        try out.raw(&sum, MemoryLayout<UInt64>.size, checksummed: false)
        try out.flush()
        guard rename(tmp, path) == 0 else { throw Failure.io("cannot rename \(tmp)") }
        ok = true
    }

    /// Reads the codes at `path` into `index` (which must be empty) when the file carries `token`.
    public static func read(into index: VectorIndex, from path: String, token: String) throws {
        precondition(index.count == 0, "restore into an empty index")
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Failure.io("cannot open \(path)") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure.io("cannot stat \(path)") }
        var input = Reader(fd: fd, left: Int(st.st_size))
        guard try input.get(UInt64.self) == magic, try input.get(UInt32.self) == format else { throw Failure.notACodesFile }
        guard try input.get(UInt32.self) == UInt32(index.dimension) else { throw Failure.notACodesFile }
        guard try input.string() == token else { throw Failure.otherToken }
        let owners = try input.get(UInt64.self)
        var blocks: [String: OwnerBlock] = [:]
        for _ in 0..<owners {
            let owner = try input.string()
            let d = index.dimension
            let count = Int(try input.get(UInt64.self)), groups = Int(try input.get(UInt64.self))
            guard count <= groups * 16, groups * 16 < count + 16, blocks[owner] == nil else { throw Failure.damaged }
            let rowids = try input.array(Int64.self, count: count)
            let scales = try input.array(Float.self, count: groups * 16)
            let errors = try input.array(Float.self, count: groups * 16)
            let sums = try input.array(Int32.self, count: groups * 16)
            let codes = try input.codes(count: groups * 16 * Int8RowCodes.padded(d))
            guard let rows = Int8RowCodes(dimension: d, count: count, scales: scales, errors: errors, sums: sums, codes: codes) else {
                throw Failure.damaged
            }
            blocks[owner] = OwnerBlock(codes: rows, rowids: rowids)
        }
        let computed = input.sum
        guard try input.get(UInt64.self, checksummed: false) == computed, input.left == 0 else { throw Failure.damaged }
        // The slot maps: rebuilt here (cheaper than storing them).
        var total = 0
        for (owner, var b) in blocks {
            b.slotOf.reserveCapacity(b.count)
            for (slot, r) in b.rowids.enumerated() { b.slotOf[r] = slot }
            guard b.slotOf.count == b.count else { throw Failure.damaged }
            blocks[owner] = b
            total += b.count
        }
        var ownerOf: [Int64: String] = [:]
        ownerOf.reserveCapacity(total)
        for (owner, b) in blocks { for r in b.rowids { ownerOf[r] = owner } }
        guard ownerOf.count == total else { throw Failure.damaged }
        index.blocks = blocks
        index.ownerOf = ownerOf
    }

    /// Buffered writes with a running checksum.
    struct Writer {
        let fd: Int32
        var sum: UInt64 = 0
        var buffer: [UInt8] = []

        init(fd: Int32) {
            self.fd = fd
            buffer.reserveCapacity(1 << 16)
        }

        mutating func put<T: FixedWidthInteger>(_ v: T) throws {
            var v = v
            try raw(&v, MemoryLayout<T>.size, checksummed: true)
        }

        mutating func put(string s: String) throws {
            let bytes = Array(s.utf8)
            try put(UInt32(bytes.count))
            try bytes.withUnsafeBytes { try raw($0.baseAddress, $0.count) }
        }

        mutating func put<T>(array a: [T]) throws {
            try a.withUnsafeBytes { try raw($0.baseAddress, $0.count) }
        }

        mutating func raw(_ p: UnsafeRawPointer?, _ n: Int, checksummed: Bool = true) throws {
            guard n > 0, let p else { return }
            if checksummed { sum = Checksum.update(sum, p, count: n) }
            if n < 4096 {
                buffer.append(contentsOf: UnsafeRawBufferPointer(start: p, count: n))
                if buffer.count >= 1 << 16 { try flush() }
                return
            }
            try flush()
            try Self.writeAll(fd, p, n)
        }

        mutating func flush() throws {
            try buffer.withUnsafeBytes { try Self.writeAll(fd, $0.baseAddress!, $0.count) }
            buffer.removeAll(keepingCapacity: true)
        }

        static func writeAll(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) throws {
            var done = 0
            while done < n {
                let w = systemWrite(fd, p + done, min(n - done, 1 << 30))
                if w < 0 {
                    if errno == EINTR { continue }
                    throw Failure.io("write failed (errno \(errno))")
                }
                done += w
            }
        }
    }

    /// Reads with a running checksum, never past the file's size.
    struct Reader {
        let fd: Int32
        var left: Int
        var sum: UInt64 = 0

        mutating func get<T: FixedWidthInteger>(_: T.Type, checksummed: Bool = true) throws -> T {
            var v: T = 0
            try withUnsafeMutableBytes(of: &v) { try fill($0.baseAddress!, $0.count, checksummed: checksummed) }
            return v
        }

        mutating func string() throws -> String {
            let n = Int(try get(UInt32.self))
            guard n <= 1 << 20 else { throw Failure.damaged }
            let bytes = try array(UInt8.self, count: n)
            return String(decoding: bytes, as: UTF8.self)
        }

        mutating func array<T>(_: T.Type, count: Int) throws -> [T] {
            let bytes = count * MemoryLayout<T>.stride
            guard count >= 0, bytes <= left else { throw Failure.damaged }
            return try [T](unsafeUninitializedCapacity: count) { buf, n in
                if bytes > 0 { try fill(UnsafeMutableRawPointer(buf.baseAddress!), bytes, checksummed: true) }
                n = count
            }
        }

        mutating func codes(count: Int) throws -> CodeBuffer {
            guard count >= 0, count <= left else { throw Failure.damaged }
            return try CodeBuffer(count: count) { try fill(UnsafeMutableRawPointer($0.baseAddress!), count, checksummed: true) }
        }

        mutating func fill(_ p: UnsafeMutableRawPointer, _ n: Int, checksummed: Bool) throws {
            guard n <= left else { throw Failure.damaged }
            var done = 0
            while done < n {
                let r = systemRead(fd, p + done, min(n - done, 1 << 30))
                if r < 0 {
                    if errno == EINTR { continue }
                    throw Failure.io("read failed (errno \(errno))")
                }
                guard r > 0 else { throw Failure.damaged }
                done += r
            }
            left -= n
            if checksummed { sum = Checksum.update(sum, p, count: n) }
        }
    }
}
