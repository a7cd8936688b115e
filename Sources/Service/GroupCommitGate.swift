public import JSONRPC
import Storage

/// `GroupCommit` as the server's durability gate.
struct GroupCommitGate: DurabilityGate {
    let commits: GroupCommit
    func mark() -> UInt64 { commits.mark() }
    func whenDurable(_ mark: UInt64, _ body: @escaping @Sendable ((any Error)?) -> Void) { commits.whenDurable(mark, body) }
}

extension KindredService {
    /// Hands the writer's syncs to group commit, for a server that holds each response until the
    /// writes it may reveal are durable (`Server.Options.durability`): a write's turn then ends at
    /// its commit, and the reads after it and the next write run while it syncs. Nil for a store
    /// without a WAL of its own (in memory), whose commits stay as they are.
    /// Only a caller that gates every answer this way may use it: answered without the gate, a
    /// write would survive the process being killed but not the machine losing power.
    public func groupCommit() throws -> (any DurabilityGate)? {
        guard checkpointer != nil else { return nil }
        return try writer.with { store in GroupCommitGate(commits: try GroupCommit(store.database)) }
    }
}
