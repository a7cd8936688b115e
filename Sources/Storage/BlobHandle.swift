internal import CSQLite

/// An open BLOB of one row (SQLite's incremental BLOB I/O): reads and writes byte ranges of the
/// value in place, touching only the pages that hold them, without a statement per access. The
/// BLOB's size is fixed while it is open. A write is part of the connection's open transaction,
/// like any other change, but fires no trigger. Not Sendable; closed in `deinit` (or by `close`).
final class BlobHandle {
    private var handle: OpaquePointer?
    private let database: Database
    private let what: String

    /// Opens `table.column` of the row `rowid` on `database`, for writing when `writable`.
    init(_ database: Database, table: String, column: String, rowid: Int64, writable: Bool) throws {
        self.database = database
        what = "blob \(table).\(column)"
        try database.checkOpen(what)
        let rc = sqlite3_blob_open(database.handle, "main", table, column, rowid, writable ? 1 : 0, &handle)
        guard rc == SQLITE_OK else {
            let e = database.error(rc, sql: what)
            sqlite3_blob_close(handle)
            handle = nil
            throw e
        }
    }

    deinit { close() }

    func close() {
        if let handle { sqlite3_blob_close(handle) }
        handle = nil
    }

    /// Moves the handle to another row of the same table and column.
    func reopen(rowid: Int64) throws {
        let rc = sqlite3_blob_reopen(handle, rowid)
        guard rc == SQLITE_OK else { throw database.error(rc, sql: what) }
    }

    var count: Int { Int(sqlite3_blob_bytes(handle)) }

    /// Copies `into.count` bytes from `offset` into `into`.
    func read(into: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        guard let base = into.baseAddress, !into.isEmpty else { return }
        let rc = sqlite3_blob_read(handle, base, Int32(into.count), Int32(offset))
        guard rc == SQLITE_OK else { throw database.error(rc, sql: what) }
    }

    /// Overwrites `bytes.count` bytes from `offset` with `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let rc = sqlite3_blob_write(handle, base, Int32(bytes.count), Int32(offset))
        guard rc == SQLITE_OK else { throw database.error(rc, sql: what) }
    }
}
