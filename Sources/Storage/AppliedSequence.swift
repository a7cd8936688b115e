/// A shard of a cluster is a store that applies writes read from a replicated log, in log order.
/// The log position of the write being applied is bound here around the call that applies it;
/// every transaction that commits on that thread meanwhile stores it in the same transaction, so
/// the store and the position it has applied up to never disagree (a crash loses both or neither,
/// and applying the log again from the stored position is exact).
public enum AppliedSequence {
    /// The log sequence of the write being applied on this thread (nil outside a cluster apply).
    @TaskLocal public static var current: Int64?

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS applied_sequence(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            sequence INTEGER NOT NULL)
        """

    /// Creates the one-row table when missing (a cluster node, before it applies anything).
    public static func prepare(_ db: Database) throws {
        try db.execute(createSQL)
    }

    /// The sequence of the last write applied (0 when none).
    public static func read(_ db: Database) throws -> Int64 {
        try db.scalarInt("SELECT sequence FROM applied_sequence WHERE id = 1") ?? 0
    }

    /// Records `sequence` as applied on its own, for a write that committed nothing (it failed the
    /// same way it fails wherever it is applied, or changed nothing): the file then says it was
    /// applied, as the log's next write expects (`prev`).
    public static func advance(_ db: Database, to sequence: Int64) throws {
        if try read(db) < sequence { try stamp(db, sequence) }
    }

    /// Called by `Database.transaction` just before an outermost COMMIT.
    static func stamp(_ db: Database, _ sequence: Int64) throws {
        try db.run("""
            INSERT INTO applied_sequence(id, sequence) VALUES (1, ?)
            ON CONFLICT(id) DO UPDATE SET sequence = max(sequence, excluded.sequence)
            """, [.int(sequence)])
    }
}
