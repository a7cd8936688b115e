public import KindredCore

/// What a snapshot's header message and its final marker say: the shard, the write log sequence
/// the copy holds (every write up to it is in the copy, none after it), its size in bytes, its
/// SHA-256, the number of chunks that follow the header, and `logFrom`: the shard's log is trimmed
/// below it once this snapshot is published (the oldest snapshot kept with it), so a copy that has
/// applied less must start from a snapshot.
public struct SnapshotHeader: Sendable, Equatable {
    public let id: String
    public let shard: Int
    public let sequence: UInt64
    public let size: Int
    public let sha256: String
    public let chunks: Int
    public let logFrom: UInt64
    /// In the final marker only: the stream sequences of the header and of each chunk, so that a
    /// reader asks the stream's leader for exactly those messages.
    public var parts: [UInt64] = []

    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "shard": .from(shard), "sequence": .int(Int64(sequence)), "size": .from(size),
                             "sha256": .string(sha256), "chunks": .from(chunks), "logFrom": .int(Int64(logFrom))]
        if !parts.isEmpty { o["parts"] = .array(parts.map { .int(Int64($0)) }) }
        return .object(o)
    }

    /// The header as its first message holds it (without `parts`).
    public var header: SnapshotHeader {
        var h = self
        h.parts = []
        return h
    }

    public init(id: String, shard: Int, sequence: UInt64, size: Int, sha256: String, chunks: Int, logFrom: UInt64) {
        (self.id, self.shard, self.sequence, self.size, self.sha256, self.chunks, self.logFrom) = (id, shard, sequence, size, sha256, chunks, logFrom)
    }

    /// Decodes a header or marker message; nil for anything else.
    public init?(_ bytes: [UInt8]) {
        guard let v = try? JSONParser.parse(bytes), let id = v["id"]?.stringValue, let shard = v["shard"]?.intValue,
              let sequence = v["sequence"]?.intValue, sequence >= 0, let size = v["size"]?.intValue, size >= 0,
              let sha = v["sha256"]?.stringValue, let chunks = v["chunks"]?.intValue, chunks >= 0,
              let logFrom = v["logFrom"]?.intValue, logFrom >= 0 else { return nil }
        self.init(id: id, shard: Int(shard), sequence: UInt64(sequence), size: Int(size), sha256: sha, chunks: Int(chunks), logFrom: UInt64(logFrom))
        parts = (v["parts"]?.arrayValue ?? []).compactMap { $0.intValue.map { UInt64(max(0, $0)) } }
    }
}

/// The reader's check of a snapshot's chunks against its header: their count, their total size and
/// their SHA-256. A snapshot that fails it is refused, never restored.
public struct SnapshotCheck {
    public let header: SnapshotHeader
    private var digest = SHA256()
    private var size = 0
    private var count = 0

    public init(_ header: SnapshotHeader) { self.header = header }

    /// Takes the next chunk; refuses one beyond the header's size or count.
    public mutating func add(_ chunk: [UInt8]) throws(ClusterError) {
        count += 1
        size += chunk.count
        guard count <= header.chunks, size <= header.size else {
            throw ClusterError("snapshot \(header.id) of shard \(header.shard): more data than its header's \(header.size) bytes in \(header.chunks) chunks")
        }
        digest.update(chunk)
    }

    /// Checks that every chunk came and that their SHA-256 is the header's.
    public mutating func finish() throws(ClusterError) {
        guard count == header.chunks, size == header.size else {
            throw ClusterError("snapshot \(header.id) of shard \(header.shard): \(size) bytes in \(count) chunks, its header says \(header.size) in \(header.chunks)")
        }
        let got = digest.hexDigest()
        guard got == header.sha256 else {
            throw ClusterError("snapshot \(header.id) of shard \(header.shard) refused: its chunks' SHA-256 is \(got), its header says \(header.sha256)")
        }
    }
}
