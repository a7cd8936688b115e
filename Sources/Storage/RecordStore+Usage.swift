import KindredCore

/// One owner's use of one remote provider on one UTC day.
public struct DailyUsage: Sendable, Equatable {
    public var day: String
    public var provider: String
    public var calls: Int
    public var attempts: Int
    public var inputCharacters: Int
    public var tokens: Int
}

/// Per-owner daily totals of remote provider use (what a daily limit is checked against).
extension RecordStore {
    /// Adds to `owner`'s totals for `day` (YYYY-MM-DD, UTC) and `provider`.
    public func addUsage(owner: String, day: String, provider: String, calls: Int, attempts: Int, inputCharacters: Int, tokens: Int) throws {
        try database.run("""
            INSERT INTO usage_daily(owner, day, provider, calls, attempts, input_chars, tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(owner, day, provider) DO UPDATE SET calls = calls + excluded.calls, attempts = attempts + excluded.attempts,
                input_chars = input_chars + excluded.input_chars, tokens = tokens + excluded.tokens
            """, [.text(owner), .text(day), .text(provider), .from(calls), .from(attempts), .from(inputCharacters), .from(tokens)])
    }

    /// `owner`'s totals per day and provider, days in `from...to` (inclusive, either end open), oldest first.
    public func usage(owner: String, from: String?, to: String?) throws -> [DailyUsage] {
        try database.query("""
            SELECT day, provider, calls, attempts, input_chars, tokens FROM usage_daily
            WHERE owner = ?1 AND (?2 IS NULL OR day >= ?2) AND (?3 IS NULL OR day <= ?3) ORDER BY day, provider
            """, [.text(owner), from.map { .text($0) } ?? .null, to.map { .text($0) } ?? .null]) {
            DailyUsage(day: $0.text(0) ?? "", provider: $0.text(1) ?? "", calls: Int($0.int(2)), attempts: Int($0.int(3)),
                       inputCharacters: Int($0.int(4)), tokens: Int($0.int(5)))
        }
    }

    /// `owner`'s calls and characters on `day`, over every provider.
    public func usageTotal(owner: String, day: String) throws -> (calls: Int, inputCharacters: Int) {
        let rows = try database.query("SELECT coalesce(sum(calls), 0), coalesce(sum(input_chars), 0) FROM usage_daily WHERE owner = ? AND day = ?",
                                      [.text(owner), .text(day)]) { (Int($0.int(0)), Int($0.int(1))) }
        return rows.first ?? (0, 0)
    }
}
