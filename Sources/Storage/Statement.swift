internal import CSQLite

/// A prepared statement; finalized in `deinit`.
public final class Statement {
    let handle: OpaquePointer
    /// The connection handle (not the `Database`, which caches statements: no reference cycle).
    /// SQLite keeps a connection closed with `sqlite3_close_v2` alive until its statements are finalized.
    let connection: OpaquePointer
    let sql: String

    init(database: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, 0, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw database.error(rc, sql: sql) }
        connection = database.handle
        handle = stmt
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func error() -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }

    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    public func bind(_ values: [SQLValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, v) in values.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(handle, idx)
            case .int(let x): rc = sqlite3_bind_int64(handle, idx, x)
            case .double(let x): rc = sqlite3_bind_double(handle, idx, x)
            case .text(let s): rc = kindred_sqlite_bind_text(handle, idx, s, -1)
            case .blob(let b):
                rc = b.withUnsafeBytes { kindred_sqlite_bind_blob(handle, idx, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count)) }
            }
            guard rc == SQLITE_OK else { throw error() }
        }
    }

    /// Steps once; true when a row is available.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error()
        }
    }

    public func isNull(_ col: Int) -> Bool { sqlite3_column_type(handle, Int32(col)) == SQLITE_NULL }
    public func int(_ col: Int) -> Int64 { sqlite3_column_int64(handle, Int32(col)) }
    public func double(_ col: Int) -> Double { sqlite3_column_double(handle, Int32(col)) }

    public func text(_ col: Int) -> String? {
        guard let p = sqlite3_column_text(handle, Int32(col)) else { return nil }
        let n = Int(sqlite3_column_bytes(handle, Int32(col)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// Calls `body` with the column's bytes (empty for NULL or a zero-length blob).
    public func withBlob<T>(_ col: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let n = Int(sqlite3_column_bytes(handle, Int32(col)))
        guard n > 0, let p = sqlite3_column_blob(handle, Int32(col)) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return try body(UnsafeRawBufferPointer(start: p, count: n))
    }
}
