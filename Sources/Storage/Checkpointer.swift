internal import CSQLite
import Dispatch
import KindredCore
import Synchronization

/// Copies the write-ahead log back into the database file on a thread of its own, so that the
/// writer does not: with SQLite's automatic checkpoint, the connection that commits copies every
/// frame of the WAL into the file and syncs the file, inside the write call, after its commit is
/// already durable. Here the writer's commit only wakes this thread (`handCheckpoints`) once the
/// WAL holds `frames` frames or more, and the copy and its sync overlap the writer's next batch.
/// A checkpoint is PASSIVE: it never waits for the writer or for readers, copies what no reader
/// still needs, and the writer starts the WAL over once everything is copied, as before.
/// Durability is unchanged: a commit is durable when its WAL frames are synced, checkpointed or not.
public final class Checkpointer: @unchecked Sendable {
    // `database` is used only on `queue`; the other state is behind `state`.
    private let database: Database
    private let queue = DispatchQueue(label: "kindred.checkpoint")
    private let state = Mutex((scheduled: false, stopped: false))
    let frames: Int32

    /// Opens a connection of its own to `path` (which must exist).
    public init(path: String, frames: Int = 1000) throws {
        database = try Database(path: path)
        self.frames = Int32(frames)
    }

    /// Schedules one checkpoint unless one is already waiting to run.
    func wake() {
        let run = state.withLock { s -> Bool in
            guard !s.stopped, !s.scheduled else { return false }
            s.scheduled = true
            return true
        }
        guard run else { return }
        queue.async { [self] in
            state.withLock { $0.scheduled = false }
            // A failed checkpoint leaves the frames in the WAL for the next one (or the close).
            try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
    }

    /// Waits for a running checkpoint, then closes the connection; later wakes do nothing.
    public func stop() {
        state.withLock { $0.stopped = true }
        queue.sync { database.close() }
    }
}

extension Database {
    /// Leaves this connection's checkpoints to `checkpointer`: no automatic checkpoint at commit,
    /// a wake of `checkpointer` instead when the WAL holds its frame count or more.
    public func handCheckpoints(to checkpointer: Checkpointer) {
        walHook().checkpointer.withLock { $0 = checkpointer }
    }
}
