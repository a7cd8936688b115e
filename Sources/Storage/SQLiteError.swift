/// An SQLite failure: extended result code, message and the SQL that failed (never the bound values).
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let sql: String?

    public var description: String {
        var s = "SQLite error \(code): \(message)"
        if let sql { s += " (in: \(sql.prefix(200)))" }
        return s
    }

    /// SQLITE_CONSTRAINT and its extended codes.
    public var isConstraint: Bool { code & 0xFF == 19 }
    /// SQLITE_INTERRUPT.
    public var isInterrupt: Bool { code & 0xFF == 9 }
}
