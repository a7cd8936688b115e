internal import CSQLite
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Group commit for a writer connection in WAL mode. Its commits no longer sync the WAL each on
/// its own (`synchronous=NORMAL`): a commit's frames reach the WAL file with `write`, so the
/// commit survives the process being killed and readers see it at once. Whoever may not go on
/// before a commit is durable (the server, before it answers) takes a `mark` and asks
/// `whenDurable`; one thread syncs the WAL for every commit made so far, so commits waiting
/// together share one sync. With `synchronous=FULL` each commit synced alone inside the write.
///
/// Why this is as durable as FULL for what waits: FULL is NORMAL plus a sync of the WAL after
/// each commit, which is the sync made here before `whenDurable` calls back. A checkpoint syncs
/// the WAL before it copies frames into the file and syncs the file before the WAL starts over,
/// so a commit whose frames a restarted WAL overwrites is already durable in the file.
/// Use it on a connection whose checkpoints a `Checkpointer` makes (its WAL hook replaces the
/// automatic checkpoint).
public final class GroupCommit: Sendable {
    private let hook: WALHook
    private let walPath: String
    private let queue = DispatchQueue(label: "kindred.group-commit")
    private struct State {
        var synced: UInt64 = 0
        var waiting: [(mark: UInt64, body: @Sendable ((any Error)?) -> Void)] = []
        var syncing = false
        var syncs = 0
    }
    private let state = Mutex(State())
    /// The WAL file as last opened (used on `queue` only).
    private let file = Mutex<(fd: Int32, device: UInt64, inode: UInt64)>((-1, 0, 0))

    /// Switches `database` (the writer, on the caller's thread) to commits without their own sync.
    public init(_ database: Database) throws {
        guard try database.query("PRAGMA journal_mode", row: { $0.text(0) }).first == "wal" else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "group commit needs a database in WAL mode", sql: nil)
        }
        hook = database.walHook()
        walPath = database.path + "-wal"
        try database.execute("PRAGMA synchronous=NORMAL")
        // Commits made before now synced themselves (FULL).
        state.withLock { $0.synced = hook.commits.load(ordering: .acquiring) }
    }

    deinit {
        file.withLock { if $0.fd >= 0 { close($0.fd) } }
    }

    /// Covers every commit the connection has made so far.
    public func mark() -> UInt64 { hook.commits.load(ordering: .acquiring) }

    /// Calls `body` once every commit up to `mark` is durable (at once when it already is), with
    /// the error that kept the sync from succeeding, if any.
    public func whenDurable(_ mark: UInt64, _ body: @escaping @Sendable ((any Error)?) -> Void) {
        let now = state.withLock { s -> Bool in
            if mark <= s.synced { return true }
            s.waiting.append((mark, body))
            if !s.syncing {
                s.syncing = true
                queue.async { [self] in drain() }
            }
            return false
        }
        if now { body(nil) }
    }

    /// Syncs made so far.
    public var syncCount: Int { state.withLock { $0.syncs } }

    /// Syncs until nobody waits: each round covers every commit counted before it started.
    private func drain() {
        while true {
            let target = mark()
            let problem = syncWAL()
            let (ready, more) = state.withLock { s -> ([@Sendable ((any Error)?) -> Void], Bool) in
                s.syncs += 1
                if problem == nil { s.synced = max(s.synced, target) }
                let done = s.waiting.filter { $0.mark <= target }.map(\.body)
                s.waiting.removeAll { $0.mark <= target }
                if s.waiting.isEmpty { s.syncing = false }
                return (done, s.syncing)
            }
            for body in ready { body(problem) }
            if !more { return }
        }
    }

    /// fsync of the WAL file through a descriptor of its own, opened again when SQLite replaced the
    /// file. No WAL file means every commit was checkpointed into the database file (and synced).
    private func syncWAL() -> (any Error)? {
        file.withLock { f -> (any Error)? in
            var st = stat()
            guard stat(walPath, &st) == 0 else {
                return errno == ENOENT ? nil : Self.failure("stat", walPath)
            }
            if f.fd < 0 || f.device != UInt64(st.st_dev) || f.inode != UInt64(st.st_ino) {
                if f.fd >= 0 { close(f.fd) }
                f.fd = open(walPath, O_RDONLY | O_CLOEXEC)
                guard f.fd >= 0 else { return Self.failure("open", walPath) }
                f.device = UInt64(st.st_dev)
                f.inode = UInt64(st.st_ino)
                // The WAL file's name in its directory must be durable too (SQLite in FULL mode
                // syncs the directory once after creating the file).
                let dir = walPath.lastIndex(of: "/").map { String(walPath[..<$0]) } ?? "."
                let d = open(dir.isEmpty ? "/" : dir, O_RDONLY | O_CLOEXEC)
                if d >= 0 {
                    defer { close(d) }
                    if fsync(d) != 0 { return Self.failure("fsync", dir) }
                }
            }
            return fsync(f.fd) == 0 ? nil : Self.failure("fsync", walPath)
        }
    }

    private static func failure(_ call: String, _ path: String) -> SQLiteError {
        SQLiteError(code: SQLITE_IOERR, message: "\(call) of \(path) failed: \(String(cString: strerror(errno)))", sql: nil)
    }
}
