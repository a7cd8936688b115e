#if canImport(Glibc)
import Glibc
#endif

/// The release each nats-server announces in the INFO line it sends first on every connection, read
/// over a plain TCP connection of its own, and whether a node may trim the write log on them.
///
/// nats-server before 2.9.18 replays a purge of one subject, on a replica that restarts, as a purge
/// of every subject below the purge's sequence (nats-server#4196). A node trims a shard's log with
/// exactly such purges, so on those servers a restart could wipe other shards' writes: it keeps the
/// whole log instead (snapshots are still taken and used).
public enum ServerVersions {
    /// The first release that replays a one-subject purge as one.
    public static let trimSafe = [2, 9, 18]

    /// "2.9.10" → [2, 9, 10]; nil for text that is not dotted numbers (a "-beta" suffix is dropped).
    public static func parse(_ text: String) -> [Int]? {
        let core = text.split(separator: "-", maxSplits: 1).first.map(String.init) ?? ""
        let parts = core.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.map { $0! }
    }

    /// True when release `a` comes before `b` (missing parts count as 0).
    public static func isBefore(_ a: [Int], _ b: [Int]) -> Bool {
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    /// The "version" of the INFO line a server sends (`INFO {json}\r\n`), nil when there is none.
    public static func version(fromInfo line: String) -> String? {
        guard line.hasPrefix("INFO "), let range = line.range(of: "\"version\"") else { return nil }
        let rest = line[range.upperBound...].drop { $0 == " " || $0 == ":" }
        guard rest.first == "\"" else { return nil }
        let value = rest.dropFirst().prefix { $0 != "\"" }
        return value.isEmpty ? nil : String(value)
    }

    /// The release the server at `url` (`nats://host:port`, or host:port) announces, or nil when it
    /// cannot be reached within `timeoutMs` or sends no version.
    public static func version(of url: String, timeoutMs: Int32 = 2000) -> String? {
        var address = url
        if let scheme = address.range(of: "://") { address = String(address[scheme.upperBound...]) }
        if let at = address.lastIndex(of: "@") { address = String(address[address.index(after: at)...]) }
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else { return nil }
        let host = String(address[..<colon]).trimmingCharacters(in: "[]")
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else { return nil }
        defer { freeaddrinfo(found) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(timeoutMs / 1000), tv_usec: Int(timeoutMs % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else { return nil }
        // The INFO line comes first and is short; 64 KiB bounds what a stranger can make us read.
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
            if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) { return version(fromInfo: String(decoding: bytes[..<end], as: UTF8.self)) }
        }
        return nil
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
