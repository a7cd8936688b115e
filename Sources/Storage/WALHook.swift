internal import CSQLite
import Synchronization

/// What a connection's WAL hook does after each of its commits (SQLite keeps one hook per
/// connection, and installing one turns the automatic checkpoint off): counts the commit, for
/// `GroupCommit`'s marks, and wakes the checkpointer once the WAL holds its frame count or more.
/// SQLite calls the hook after the commit's frames are written to the WAL and the write lock is
/// released, so a count read afterwards covers only commits that readers can already see.
final class WALHook: Sendable {
    let commits = Atomic<UInt64>(0)
    let checkpointer = Mutex<Checkpointer?>(nil)
}

extension Database {
    /// This connection's hook, installed on first use.
    func walHook() -> WALHook {
        if let walHookState { return walHookState }
        let state = WALHook()
        walHookState = state
        let hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { context, _, _, frames in
            let h = Unmanaged<WALHook>.fromOpaque(context!).takeUnretainedValue()
            h.commits.add(1, ordering: .releasing)
            if let c = h.checkpointer.withLock({ $0 }), frames >= c.frames { c.wake() }
            return SQLITE_OK
        }
        sqlite3_wal_hook(handle, hook, Unmanaged.passUnretained(state).toOpaque())
        return state
    }
}
