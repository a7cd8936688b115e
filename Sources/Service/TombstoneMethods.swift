import KindredCore
import JSONRPC
import Storage
import KindredProtocol

/// `records/purgeTombstones`: drops the tombstones of records deleted before a date, so that the
/// ids may be written from revision 1 again. A tombstone is what makes a replayed old revision of a
/// deleted record `stale` (see `RecordStore.delete`).
extension KindredService {
    func purgeTombstones(_ req: RecordsPurgeTombstones) throws(ResponseError) -> RecordsPurgeTombstones.Result {
        let owner = req.owner, before = req.before
        let purged: Int = try withWriter { store in
            do {
                return try store.purgeTombstones(owner: owner, before: before)
            } catch is InvalidInstant {
                throw ResponseError.invalidParams(field: "before", reason: "must be an ISO-8601 date (YYYY-MM-DD) or timestamp")
            }
        }
        return RecordsPurgeTombstones.Result(purged: purged)
    }
}

extension ResponseError {
    /// records/get of a deleted record: not found, saying when and at which revision it was deleted.
    static func deleted(_ t: Tombstone) -> ResponseError {
        ResponseError(code: .notFound, message: "record not found: \(t.id) (deleted at revision \(t.revision))",
                      data: ["what": "record", "id": .string(t.id), "owner": .string(t.owner), "deleted": true,
                             "revision": .int(t.revision), "deletedAt": .string(t.deletedAt)])
    }
}
