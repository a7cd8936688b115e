/// What is left of a deleted record: enough to refuse a replay of the revision it was deleted at, or
/// of an older one, as `stale` (a syncing client that replays its history must not bring it back).
/// An upsert of a higher revision recreates the record and removes the tombstone; a tombstone also
/// goes when it is purged (`purgeTombstones`).
public struct Tombstone: Sendable, Equatable {
    public var owner: String
    public var id: String
    /// The revision the record had when it was deleted.
    public var revision: Int64
    /// When it was deleted: ISO-8601 UTC with milliseconds, e.g. `2024-05-01T09:30:00.000Z`.
    public var deletedAt: String
}

/// A date or timestamp SQLite's date functions cannot read.
public struct InvalidInstant: Error, Sendable {
    public let text: String
}

extension RecordStore {
    /// The tombstone of the owner's record `id`, if it was deleted and not recreated or purged since.
    public func tombstone(owner: String, id: String) throws -> Tombstone? {
        try database.query("SELECT revision, deleted_at FROM record_tombstones WHERE owner = ? AND id = ?", [.text(owner), .text(id)]) {
            Tombstone(owner: owner, id: id, revision: $0.int(0), deletedAt: $0.text(1) ?? "")
        }.first
    }

    func tombstoneRevision(owner: String, id: String) throws -> Int64? {
        try database.scalarInt("SELECT revision FROM record_tombstones WHERE owner = ? AND id = ?", [.text(owner), .text(id)])
    }

    /// Removes the tombstones of records deleted before `before` (an ISO-8601 date or timestamp,
    /// compared as instants; a date means its midnight UTC), of one owner or of all; returns how many.
    /// Throws `InvalidInstant` when SQLite cannot read `before` as a time.
    public func purgeTombstones(owner: String?, before: String) throws -> Int {
        guard try database.scalarInt("SELECT julianday(?) IS NOT NULL", [.text(before)]) == 1 else { throw InvalidInstant(text: before) }
        return try database.transaction {
            if let owner {
                try database.run("DELETE FROM record_tombstones WHERE owner = ? AND julianday(deleted_at) < julianday(?)",
                                 [.text(owner), .text(before)])
            } else {
                try database.run("DELETE FROM record_tombstones WHERE julianday(deleted_at) < julianday(?)", [.text(before)])
            }
            return database.changes
        }
    }

    /// How many tombstones the owner (or every owner) has.
    public func tombstoneCount(owner: String?) throws -> Int {
        if let owner {
            return Int(try database.scalarInt("SELECT count(*) FROM record_tombstones WHERE owner = ?", [.text(owner)]) ?? 0)
        }
        return Int(try database.scalarInt("SELECT count(*) FROM record_tombstones") ?? 0)
    }
}
