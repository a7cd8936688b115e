internal import CSQLite
import KindredCore
import Synchronization

/// The tokenizer of the keyword index (`records_fts`, migration 8), called directly through FTS5's
/// C interface: the terms it returns for a text are exactly the terms FTS5 stores for that text, so
/// an in-memory copy of the index built from them ranks as FTS5 does. Owns a private in-memory
/// connection (FTS5 hands out tokenizers per connection); one call at a time (guarded inside).
public final class KeywordTokenizer: @unchecked Sendable {
    /// The `tokenize=` value of `records_fts` (see `MigrationSQL.v8` and `v21`).
    public static let spec = "porter unicode61 remove_diacritics 2"
    /// FTS5 keeps at most this many bytes of a token (FTS5_MAX_TOKEN_SIZE).
    static let maxTokenBytes = 32768

    private let connection: OpaquePointer
    private let tokenizer: UnsafeMutablePointer<kindred_fts5_tokenizer>
    private let lock = Mutex<Void>(())

    public init() throws {
        _ = Database.configured
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open the tokenizer's in-memory database", sql: nil)
        }
        connection = db
        tokenizer = .allocate(capacity: 1)
        let opened = kindred_fts5_tokenizer_open(db, Self.spec, tokenizer)
        guard opened == SQLITE_OK else {
            tokenizer.deallocate()
            sqlite3_close_v2(db)
            throw SQLiteError(code: opened, message: "FTS5 tokenizer '\(Self.spec)' is not available", sql: nil)
        }
    }

    deinit {
        kindred_fts5_tokenizer_close(tokenizer)
        tokenizer.deallocate()
        sqlite3_close_v2(connection)
    }

    /// The terms FTS5 indexes for `text` (UTF-8 bytes, compared as bytes as FTS5 does), in order,
    /// repeats kept (their count is the length FTS5 gives the row in bm25).
    public func documentTerms(_ text: String) -> [[UInt8]] { tokens(text, query: false) }

    /// The terms FTS5 reads from a quoted query string: one term for an ordinary word; none or
    /// several (a phrase) for strings FTS5 splits differently.
    public func queryTerms(_ text: String) -> [[UInt8]] { tokens(text, query: true) }

    private final class Sink {
        var terms: [[UInt8]] = []
    }

    private func tokens(_ text: String, query: Bool) -> [[UInt8]] {
        let sink = Sink()
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var text = text
        lock.withLock { _ in
            text.withUTF8 { bytes in
                _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                    kindred_fts5_tokenize(tokenizer, query ? 1 : 0, chars.baseAddress, Int32(chars.count), context) { ctx, _, token, size, _, _ in
                        let sink = Unmanaged<Sink>.fromOpaque(ctx!).takeUnretainedValue()
                        let n = Int(min(size, Int32(KeywordTokenizer.maxTokenBytes)))
                        sink.terms.append(token.map { p in
                            p.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
                        } ?? [])
                        return SQLITE_OK
                    }
                }
            }
        }
        return sink.terms
    }
}
