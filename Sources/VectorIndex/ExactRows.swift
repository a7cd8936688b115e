/// Where the exact float32 rows of an index live: the first pass scans int8 codes and only the few
/// rows that may belong to the top k are read back from here and scored in float32. The service
/// reads them from SQLite (the source of truth), so no second full copy is held in memory.
/// Rows are returned as they were put (the index normalises them the same way it did then).
public protocol ExactRows: AnyObject, Sendable {
    /// The vectors of `rowids`, in order; nil for a row that is no longer stored.
    func vectors(_ rowids: [Int64]) -> [[Float]?]
    /// Told of every put and remove; a source that reads rows from elsewhere ignores it.
    func didPut(rowid: Int64, vector: [Float])
    func didRemove(rowid: Int64)
}

/// Rows kept in memory beside the codes (tests, and indexes with nowhere else to read rows from).
public final class MemoryRows: ExactRows, @unchecked Sendable {
    // Mutated only under the index's write side (see `VectorIndex`).
    private var rows: [Int64: [Float]] = [:]
    public init() {}
    public func vectors(_ rowids: [Int64]) -> [[Float]?] { rowids.map { rows[$0] } }
    public func didPut(rowid: Int64, vector: [Float]) { rows[rowid] = vector }
    public func didRemove(rowid: Int64) { rows[rowid] = nil }
}
