#if canImport(Glibc)
import Glibc
#endif
import KindredCore

/// The shards' snapshots in JetStream (libnats 3.4 has no object store: this is one, on a plain
/// stream with replicas). A snapshot is a header message (`SnapshotHeader` as JSON), the file's
/// bytes in chunks of `chunkBytes`, all on `kindred.snapshots.N.ID`, then its final marker (the
/// header again) on `kindred.snapshots.N.done`: a snapshot without a marker is incomplete and never
/// read. The reader checks size and SHA-256 against the header before it uses a byte.
public struct SnapshotStore: Sendable {
    let connection: NATSConnection
    /// Under NATS's default 1 MB message limit, with room for the protocol.
    static let chunkBytes = 256 * 1024
    /// Snapshots kept per shard: the newest, and one before it for a reader still reading it when
    /// the next one lands.
    public static let kept = 2

    /// Opens the snapshots, creating their stream with `replicas` copies when missing (a node).
    public init(_ connection: NATSConnection, replicas: Int) throws {
        self.connection = connection
        try connection.ensureStream(ClusterLayout.snapshotStream, subjects: [ClusterLayout.snapshotSubjects], replicas: replicas)
    }

    /// Reads the snapshots without creating anything (`kindred cluster status`: creating a stream
    /// waits for every one of its servers, and one may be down).
    public init(reading connection: NATSConnection) { self.connection = connection }

    /// Publishes the file at `path`, a copy of the shard's store holding the log up to `sequence`,
    /// as the newest of the shard's snapshots after `previous`; its `logFrom` is the older of the
    /// two (the `kept` two: the caller trims the log below it once older ones are pruned).
    public func publish(shard: Int, path: String, sequence: UInt64, after previous: SnapshotHeader?) throws -> SnapshotHeader {
        var digest = SHA256()
        var size = 0
        var chunks = 0
        try Self.forEachChunk(path) { chunk in
            digest.update(chunk)
            size += chunk.count
            chunks += 1
        }
        var rng = SystemRandomNumberGenerator()
        let id = "\(sequence)-\(String(rng.next(), radix: 16))"
        let header = SnapshotHeader(id: id, shard: shard, sequence: sequence, size: size, sha256: digest.hexDigest(), chunks: chunks,
                                    logFrom: min(previous?.sequence ?? sequence, sequence))
        let subject = ClusterLayout.snapshotSubject(shard, id: id)
        var marker = header
        marker.parts.append(try connection.store(subject, JSONWriter.bytes(header.json)))
        try Self.forEachChunk(path) { chunk in marker.parts.append(try connection.store(subject, chunk)) }
        guard marker.parts.count == chunks + 1 else { throw ClusterError("shard \(shard): its snapshot file changed while it was published") }
        _ = try connection.store(ClusterLayout.snapshotMarkers(shard), JSONWriter.bytes(marker.json))
        return marker
    }

    /// The shard's complete snapshots, oldest first (at most `kept` and any that landed since).
    public func markers(shard: Int) throws -> [SnapshotHeader] {
        var out: [SnapshotHeader] = []
        var from: UInt64 = 1
        while let (sequence, data) = try connection.next(stream: ClusterLayout.snapshotStream, subject: ClusterLayout.snapshotMarkers(shard), from: from) {
            if let h = SnapshotHeader(data), h.shard == shard { out.append(h) }
            from = sequence + 1
        }
        return out
    }

    /// The newest complete snapshot of the shard, if any: one read, of the stream's leader. Its
    /// `logFrom` is where the shard's log starts.
    public func newest(shard: Int) throws -> SnapshotHeader? {
        guard let (_, data) = try connection.lastMessage(stream: ClusterLayout.snapshotStream, subject: ClusterLayout.snapshotMarkers(shard)) else {
            return nil
        }
        return SnapshotHeader(data)
    }

    /// Reads the snapshot into a new file at `path`, checking it against its header as it comes;
    /// a snapshot that fails the check (or whose chunks are gone) leaves no file and throws.
    /// Every part is asked of the stream's leader by the sequence the marker lists (a replica may
    /// lag it, and answer a direct read without the last chunks).
    public func fetch(_ marker: SnapshotHeader, to path: String) throws {
        let subject = ClusterLayout.snapshotSubject(marker.shard, id: marker.id)
        unlink(path)
        guard let file = fopen(path, "wb") else { throw ClusterError("cannot write \(path): \(String(cString: strerror(errno)))") }
        var closed = false
        defer { if !closed { fclose(file); unlink(path) } }
        func part(_ k: Int) throws -> [UInt8]? {
            guard k < marker.parts.count, let (s, data) = try connection.message(stream: ClusterLayout.snapshotStream, sequence: marker.parts[k]),
                  s == subject else { return nil }
            return data
        }
        guard let data = try part(0), let header = SnapshotHeader(data) else {
            throw ClusterError("snapshot \(marker.id) of shard \(marker.shard): its header is gone (a newer snapshot replaced it)")
        }
        guard header == marker.header else {
            throw ClusterError("snapshot \(marker.id) of shard \(marker.shard) refused: its header does not match its marker")
        }
        var check = SnapshotCheck(header)
        for k in 0..<header.chunks {
            guard let chunk = try part(k + 1) else { break }
            try check.add(chunk)
            guard chunk.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file) }) == chunk.count else {
                throw ClusterError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        try check.finish()
        guard fflush(file) == 0, fsync(fileno(file)) == 0 else { throw ClusterError("cannot write \(path): \(String(cString: strerror(errno)))") }
        fclose(file)
        closed = true
    }

    /// Once `newest` is published: keeps the shard's `kept` newest markers and removes the chunks
    /// of every snapshot older than `newest.logFrom` (those of older markers, and any a leader left
    /// without a marker). A snapshot at or after it is never removed here, even one this read of
    /// the markers (possibly a replica's, a moment behind) does not show yet.
    public func prune(shard: Int, newest: SnapshotHeader) throws {
        let markersSubject = ClusterLayout.snapshotMarkers(shard)
        // Markers first: a reader never finds a marker whose chunks are gone for good.
        try connection.purge(stream: ClusterLayout.snapshotStream, subject: markersSubject, keep: UInt64(Self.kept))
        let prefix = "kindred.snapshots.\(shard)."
        for subject in try connection.subjects(stream: ClusterLayout.snapshotStream, filter: prefix + "*").keys where subject != markersSubject {
            // An id starts with the sequence its snapshot holds.
            let id = subject.dropFirst(prefix.count)
            guard let sequence = UInt64(id.prefix { $0 != "-" }), sequence < newest.logFrom else { continue }
            try connection.purge(stream: ClusterLayout.snapshotStream, subject: subject)
        }
    }

    /// Calls `body` with the file's bytes, `chunkBytes` at a time.
    static func forEachChunk(_ path: String, _ body: ([UInt8]) throws -> Void) throws {
        guard let file = fopen(path, "rb") else { throw ClusterError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, chunkBytes, file) }
            if n > 0 { try body(Array(buffer[0..<n])) }
            if n < chunkBytes {
                if ferror(file) != 0 { throw ClusterError("cannot read \(path): \(String(cString: strerror(errno)))") }
                return
            }
        }
    }
}
