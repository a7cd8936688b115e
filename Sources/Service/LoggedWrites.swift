#if canImport(Glibc)
import Glibc
#endif
public import KindredCore
public import JSONRPC
import Storage

/// What a cluster node needs of the service that holds one shard: which methods are writes, and
/// applying a write read from the shard's replicated log so that the log sequence is stored in the
/// same transaction as the write (`AppliedSequence`).
extension KindredService {
    /// How the service schedules `method` (nil for a method it does not answer).
    public static func methodKind(_ method: String) -> MethodKind? { route(method)?.kind }

    /// Makes the store ready to record applied log sequences (once, before the first apply).
    public func prepareAppliedSequence() throws(ResponseError) {
        try withWriter { try AppliedSequence.prepare($0.database) }
    }

    /// The log sequence of the last write this store applied (0 when none).
    public func appliedSequence() throws(ResponseError) -> Int64 {
        try withWriter { try AppliedSequence.read($0.database) }
    }

    /// Applies a write read from the log at `sequence`, as `call` would, and answers it whole
    /// (work a write hands on to run later runs before this returns). `context` carries the
    /// request's progress, log messages and client when the leader applies it for a client.
    public func applyLogged(sequence: Int64, _ method: String, _ params: JSONValue?, context: RequestContext? = nil) throws(ResponseError) -> JSONValue {
        let ctx = context ?? RequestContext(id: .null, method: method)
        let outcome: Result<JSONValue, ResponseError> = AppliedSequence.$current.withValue(sequence) {
            do throws(ResponseError) {
                let (result, later) = try callAnsweringLater(method, params ?? .object([:]), context: ctx)
                return .success(try later?() ?? result)
            } catch {
                return .failure(error)
            }
        }
        // A write that committed nothing still counts as applied in the file.
        try withWriter { try AppliedSequence.advance($0.database, to: sequence) }
        return try outcome.get()
    }
}

/// What a cluster node needs to make and use a shard's snapshot: a consistent copy of the store
/// taken while it serves, and the log sequence a file holds.
extension KindredService {
    /// Copies the store into a new file at `path` (on a read-only connection: writes go on
    /// meanwhile) and returns the log sequence the copy holds.
    public func copyStore(to path: String) throws(ResponseError) -> Int64 {
        try withReader { try StoreCopy.write($0.database, to: path) }
        return try Self.appliedSequence(atPath: path)
    }

    /// The log sequence of the last write the file at `path` applied (0 when it has none or
    /// there is no file).
    public static func appliedSequence(atPath path: String) throws(ResponseError) -> Int64 {
        try answering(owner: nil) {
            guard access(path, F_OK) == 0 else { return 0 }
            // Read-write, so that the WAL a killed process left is recovered, not read around.
            let db = try Database(path: path)
            defer { db.close() }
            guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'applied_sequence'") == 1 else { return 0 }
            return try AppliedSequence.read(db)
        }
    }
}
