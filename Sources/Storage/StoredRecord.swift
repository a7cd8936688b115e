public import KindredCore

/// A record as read back from the store, with its index state.
public struct StoredRecord: Sendable, Equatable {
    public var rowid: Int64
    public var owner: String
    public var record: Record
    /// Index version of the stored vector, if any, and where it came from (`client` or `model`).
    public var vectorVersion: String?
    public var vectorSource: String?
}

/// The result of upserting one record.
public struct UpsertOutcome: Sendable, Equatable {
    public var id: String
    public var revision: Int64
    public var status: UpsertStatus
    public var rowid: Int64?
    /// True when the status is `stale` because the record was deleted at `revision` (a tombstone).
    public var deleted: Bool

    public init(id: String, revision: Int64, status: UpsertStatus, rowid: Int64?, deleted: Bool = false) {
        self.id = id
        self.revision = revision
        self.status = status
        self.rowid = rowid
        self.deleted = deleted
    }
}
