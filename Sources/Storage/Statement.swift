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
        var text = sql
        // SQLite stops reading SQL at a NUL whatever length it is given, and prepares only the first
        // statement: both would silently run less than was written, so both are refused.
        let (rc, rest) = text.withUTF8 { utf8 -> (Int32, Int) in
            guard !utf8.contains(0), let base = utf8.baseAddress else { return (SQLITE_MISUSE, 0) }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { chars in
                var tail: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v3(database.handle, chars, Int32(utf8.count), 0, &stmt, &tail)
                return (rc, tail.map { utf8.count - (chars.distance(to: $0)) } ?? 0)
            }
        }
        guard rc == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            if rc == SQLITE_MISUSE { throw SQLiteError(code: rc, message: "SQL text is empty or holds a NUL byte", sql: sql) }
            throw database.error(rc, sql: sql)
        }
        guard Self.isBlank(sql.utf8.suffix(rest)) else {
            sqlite3_finalize(stmt)
            throw SQLiteError(code: SQLITE_MISUSE, message: "more than one statement in one prepare", sql: sql)
        }
        connection = database.handle
        handle = stmt
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// True when the SQL after the first statement holds nothing but whitespace and semicolons.
    private static func isBlank(_ bytes: Substring.UTF8View) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0x3B }
    }

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
            case .text(let s):
                var s = s
                rc = s.withUTF8 { kindred_sqlite_bind_text(handle, idx, $0.baseAddress, UInt64($0.count)) }
            case .blob(let b):
                rc = b.withUnsafeBytes { kindred_sqlite_bind_blob(handle, idx, $0.baseAddress, UInt64($0.count)) }
            }
            guard rc == SQLITE_OK else { throw error() }
        }
    }

    // One parameter at a time (1-based), for statements bound many times in a row: no array of
    // values per round.

    public func bind(_ i: Int32, int x: Int64) throws {
        guard sqlite3_bind_int64(handle, i, x) == SQLITE_OK else { throw error() }
    }

    public func bind(_ i: Int32, text s: String?) throws {
        guard var s else {
            guard sqlite3_bind_null(handle, i) == SQLITE_OK else { throw error() }
            return
        }
        let rc = s.withUTF8 { kindred_sqlite_bind_text(handle, i, $0.baseAddress, UInt64($0.count)) }
        guard rc == SQLITE_OK else { throw error() }
    }

    /// Binds `bytes` as a blob (SQLite copies them).
    public func bind(_ i: Int32, blob bytes: UnsafeRawBufferPointer) throws {
        guard kindred_sqlite_bind_blob(handle, i, bytes.baseAddress, UInt64(bytes.count)) == SQLITE_OK else { throw error() }
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
