/// Holds responses until the writes they may reveal are durable (`Server.Options.durability`):
/// with it, a write's commit need not be durable when the write's turn ends, so the next write
/// and the reads after it go ahead while it syncs, and writes that wait together share one sync.
public protocol DurabilityGate: Sendable {
    /// Covers every write committed so far.
    func mark() -> UInt64
    /// Calls `body` once everything up to `mark` is durable (at once when it already is), with the
    /// error that kept it from being so, if any.
    func whenDurable(_ mark: UInt64, _ body: @escaping @Sendable ((any Error)?) -> Void)
}
