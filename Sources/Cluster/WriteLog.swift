/// The shards' write log: one JetStream stream, one subject per shard, replicated on file storage.
/// A write is applied to a shard's store only after the log holds it; its stream sequence orders it.
public struct WriteLog: Sendable {
    let connection: NATSConnection

    /// Opens the log, creating its stream with `min(3, servers)` replicas when missing.
    public init(_ connection: NATSConnection, replicas: Int) throws {
        self.connection = connection
        try connection.ensureStream(ClusterLayout.writeStream, subjects: [ClusterLayout.writeSubjects], replicas: replicas)
    }

    /// Appends a write to the shard's subject, fenced: JetStream refuses it unless the subject's last
    /// sequence is `expectedLast`, so a node that no longer leads the shard (and so has not seen the
    /// new leader's writes) cannot append.
    public func append(shard: Int, _ entry: [UInt8], expectedLast: UInt64, id: String) throws(NATSError) -> UInt64 {
        try connection.append(ClusterLayout.writeSubject(shard), entry, expectedLast: expectedLast, messageID: id)
    }

    /// The sequence of the shard's last write (0 when it has none).
    public func lastSequence(shard: Int) throws(NATSError) -> UInt64 {
        try connection.lastSequence(stream: ClusterLayout.writeStream, subject: ClusterLayout.writeSubject(shard))
    }

    /// The shard's first write at or after `from`.
    public func next(shard: Int, from: UInt64) throws(NATSError) -> (sequence: UInt64, data: [UInt8])? {
        try connection.next(stream: ClusterLayout.writeStream, subject: ClusterLayout.writeSubject(shard), from: from)
    }
}

extension WriteLog {
    /// Removes the shard's writes below `sequence`, the last write a snapshot holds. That write
    /// itself stays: the subject then never becomes empty, and an append fenced by the expected last
    /// subject sequence (JetStream compares it with the subject's last message) keeps working.
    public func trim(shard: Int, below sequence: UInt64) throws(NATSError) {
        try connection.purge(stream: ClusterLayout.writeStream, subject: ClusterLayout.writeSubject(shard), below: sequence)
    }
}
