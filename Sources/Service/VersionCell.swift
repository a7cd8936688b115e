import KindredCore
import Storage
import Synchronization

/// The service's index version, shared with the rows the vector index reads back. Its dimension
/// is fixed once: configured, read from the vectors stored for the model, or taken from a remote
/// provider's first answer (`KindredService.settleDimension`).
final class VersionCell: Sendable {
    private let version: Mutex<IndexVersion>

    init(_ version: IndexVersion) { self.version = Mutex(version) }

    var value: IndexVersion { version.withLock { $0 } }

    /// Fixes the dimension when it is not known yet; true when this call fixed it.
    func settle(dimension d: Int) -> Bool {
        version.withLock { v in
            guard !v.isSettled, d > 0 else { return false }
            v = v.settled(dimension: d)
            return true
        }
    }

    /// The dimension of the vectors `store` holds of `version`'s model, in any documents' form (the
    /// size with the most vectors when several were stored), nil when it holds none.
    static func storedDimension(_ store: RecordStore, of version: IndexVersion) throws -> Int? {
        var counts: [Int: Int] = [:]
        for v in try store.vectorVersions(owner: nil) {
            if let d = version.dimension(ofStored: v.version) { counts[d, default: 0] += v.count }
        }
        return counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }
}
