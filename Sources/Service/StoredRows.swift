import KindredCore
import Storage
import VectorIndex

/// The float32 rows of one index version as SQLite holds them: the vector index keeps only int8
/// codes and reads the few rows it re-scores from here, on a pooled read connection.
final class StoredRows: ExactRows, StoredElsewhere, Sendable {
    private let readers: ReaderPool
    private let version: VersionCell

    init(readers: ReaderPool, version: VersionCell) {
        self.readers = readers
        self.version = version
    }

    convenience init(readers: ReaderPool, version: IndexVersion) {
        self.init(readers: readers, version: VersionCell(version))
    }

    func vectors(_ rowids: [Int64]) -> [[Float]?] {
        guard !rowids.isEmpty else { return [] }
        // Read in rowid order (neighbouring rows share pages), answered in the order asked.
        let order = rowids.indices.sorted { rowids[$0] < rowids[$1] }
        // A read that fails leaves the rows out (the search then looks again without them).
        guard let sorted = try? readers.with({ try $0.vectors(rowids: order.map { rowids[$0] }, indexVersion: version.value) }) else {
            return rowids.map { _ in nil }
        }
        var out = [[Float]?](repeating: nil, count: rowids.count)
        for (i, v) in zip(order, sorted) { out[i] = v }
        return out
    }

    func didPut(rowid: Int64, vector: [Float]) {}
    func didRemove(rowid: Int64) {}
}
