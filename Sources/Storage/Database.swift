internal import CSQLite

/// One SQLite connection. Not Sendable: use it from one thread at a time; it closes in `deinit`.
public final class Database {
    let handle: OpaquePointer
    public let path: String

    /// Opens (creating if needed) the file at `path` with WAL, foreign keys, extended result codes
    /// and a busy timeout.
    public init(path: String, readOnly: Bool = false) throws {
        // A C string ends at its first NUL: "a.sqlite\0b" would open "a.sqlite".
        guard !path.utf8.contains(0) else {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "database path holds a NUL byte", sql: nil)
        }
        _ = Self.configured
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "\(msg): \(path)", sql: nil)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        if !readOnly {
            // Takes effect only in a file that has no page yet (a new one); a file keeps the page
            // size it was created with. 8 KiB pages halve the pages (hence the WAL frames, the
            // checkpoint's copies and their system calls) an ingest writes, and a block of 16
            // vectors at d = 384 fills three overflow pages almost exactly; 16 KiB pages would
            // leave half of each block's leaf page empty (`Sources/Storage/README.md`).
            try execute("PRAGMA page_size=\(Self.newFilePageSize)")
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=FULL")
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    /// The page size of a new file.
    public static let newFilePageSize = 8192

    /// Process-wide SQLite settings, made once before the first connection opens (a later call
    /// would be refused, so a process that opened SQLite elsewhere first simply keeps its settings).
    static let configured: Bool = kindred_sqlite_disable_memstatus() == SQLITE_OK

    private var isOpen = true
    /// What this connection's WAL hook does after each commit (`WALHook`), kept alive with the connection.
    var walHookState: WALHook?

    deinit { close() }

    /// Closes the connection (idempotent). Later calls fail with "database is closed".
    public func close() {
        guard isOpen else { return }
        isOpen = false
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    func checkOpen(_ sql: String?) throws {
        guard isOpen else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed", sql: sql) }
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that take no arguments.
    public func execute(_ sql: String) throws {
        try checkOpen(sql)
        // SQLite reads SQL up to the first NUL: what follows it would silently not run.
        guard !sql.utf8.contains(0) else { throw SQLiteError(code: SQLITE_MISUSE, message: "SQL text holds a NUL byte", sql: sql) }
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let message = err.map { String(cString: $0) } ?? "error"
            sqlite3_free(err)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    public func prepare(_ sql: String) throws -> Statement {
        try checkOpen(sql)
        return try Statement(database: self, sql: sql)
    }

    /// Prepared statements reused by `run` and `query` (keyed by SQL text). A statement is taken out
    /// while in use, so a nested use of the same SQL prepares its own.
    private var cache: [String: Statement] = [:]

    private func cachedStatement(_ sql: String) throws -> Statement {
        if let s = cache.removeValue(forKey: sql) { return s }
        return try prepare(sql)
    }

    private func giveBack(_ s: Statement) {
        s.reset()
        if cache.count < 64 { cache[s.sql] = s }
    }

    /// Lends the cached prepared statement of `sql` to `body` (for many bind–step rounds in a row).
    public func reusing<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let s = try cachedStatement(sql)
        defer { giveBack(s) }
        return try body(s)
    }

    /// Runs `sql` with `arguments`, stepping to completion.
    public func run(_ sql: String, _ arguments: [SQLValue] = []) throws {
        let s = try cachedStatement(sql)
        defer { giveBack(s) }
        try s.bind(arguments)
        while try s.step() {}
    }

    /// Returns all rows of a query, each mapped by `row`.
    public func query<T>(_ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws -> T) throws -> [T] {
        let s = try cachedStatement(sql)
        defer { giveBack(s) }
        try s.bind(arguments)
        var out: [T] = []
        while try s.step() { out.append(try row(s)) }
        return out
    }

    public func scalarInt(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64? {
        try query(sql, arguments) { $0.isNull(0) ? nil : $0.int(0) }.first ?? nil
    }

    /// Runs `body` in an IMMEDIATE transaction; rolls back if it throws. Inside another
    /// transaction it runs in a savepoint, so a store write and its follow-up commit together.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 {
            try execute("SAVEPOINT nested")
            do {
                let v = try body()
                try execute("RELEASE nested")
                return v
            } catch {
                try? execute("ROLLBACK TO nested")
                try? execute("RELEASE nested")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let v = try body()
            if let sequence = AppliedSequence.current { try AppliedSequence.stamp(self, sequence) }
            try execute("COMMIT")
            return v
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// As `transaction`, but inside an open transaction `body` runs as part of it, without a
    /// savepoint: for a write whose failure fails the enclosing transaction too (every caller up to
    /// the outermost `transaction` lets the error through). With a savepoint open, SQLite copies the
    /// pages each statement touches to a statement journal, statement by statement: at 10 000
    /// records per transaction that was ten times the pages the transaction itself wrote.
    public func joiningTransaction<T>(_ body: () throws -> T) throws -> T {
        if sqlite3_get_autocommit(handle) == 0 { return try body() }
        return try transaction(body)
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// True inside an open transaction (changes made so far may still be rolled back).
    public var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Asks a running statement on this connection to stop (safe from another thread).
    public func interrupt() { sqlite3_interrupt(handle) }

    /// What another thread may use to stop this connection's running statement.
    public var interrupter: Interrupter { Interrupter(handle: handle) }

    /// `PRAGMA integrity_check` result ("ok" when healthy).
    public func integrityCheck() throws -> String {
        try query("PRAGMA integrity_check") { $0.text(0) ?? "" }.joined(separator: "\n")
    }
}

/// Stops the statement running on one connection (`sqlite3_interrupt`, which SQLite makes safe to
/// call from any thread). Only for as long as the connection is open and in use by the one who
/// holds this: afterwards it could stop someone else's statement.
public struct Interrupter: @unchecked Sendable {
    let handle: OpaquePointer
    public func interrupt() { sqlite3_interrupt(handle) }
}

/// A bindable SQLite value.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])

    public static func from(_ s: String?) -> SQLValue { s.map { .text($0) } ?? .null }
    public static func from(_ b: Bool) -> SQLValue { .int(b ? 1 : 0) }
    public static func from(_ i: Int) -> SQLValue { .int(Int64(i)) }
}
